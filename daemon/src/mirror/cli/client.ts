import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform } from 'node:stream';
import { caBundle, clientFetch, readCaFile } from '../../tls/client-fetch';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_HOST, DEFAULT_PORT } from '../../contract/ipc';
import { errorCodeOf, type ErrorCode } from '../../contract/error-codes';

/** Options of every command that talks to a running daemon. */
export interface ServerOptions {
  server: string;
  token?: string;
  /** A CA to trust besides the system's (a daemon on --tls auto). */
  caFile?: string;
}

export const DEFAULT_SERVER = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

/** Adds `--server` and `--token` (env BOXYARD_SERVER, BOXYARD_TOKEN: keeps the token out of ps). */
export function withServerOptions(c: Command): Command {
  return c
    .addOption(new Option('--server <url>', 'the Boxyard daemon').env('BOXYARD_SERVER').default(DEFAULT_SERVER))
    .addOption(
      new Option('--token <token>', 'a Boxyard API token (e.g. from boxyard token create USER)').env('BOXYARD_TOKEN'),
    )
    .addOption(
      new Option('--ca-file <file>', 'trust this CA too: a daemon on --tls auto (written by boxyard trust)').env(
        'BOXYARD_CA_FILE',
      ),
    );
}

/**
 * A refusal from the daemon: its status, its code (contract/error-codes.ts; undefined when the
 * answer was not the daemon's, e.g. a proxy's) and the messages of its `{"errors":[…]}` body.
 * Callers act on the code.
 */
export class ApiError extends Error {
  readonly code: ErrorCode | undefined;
  constructor(
    readonly status: number,
    readonly errors: string[],
    what: string,
    body?: string,
  ) {
    const code = errorCodeOf(parsed(body));
    super(`${what}: ${status} ${errors.join('; ') || 'no message'}${code ? ` (${code})` : ''}`);
    this.code = code;
  }
}

function parsed(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** Messages of Vagrant's `{"errors":["…"]}` and JSON:API's `{"errors":[{"detail"}]}` bodies. */
export function errorMessages(text: string): string[] {
  try {
    const doc = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(doc.errors)) {
      return doc.errors.map((e) =>
        typeof e === 'string'
          ? e
          : String(
              (e as { detail?: unknown; title?: unknown }).detail ??
                (e as { title?: unknown }).title ??
                JSON.stringify(e),
            ),
      );
    }
  } catch {
    /* not JSON: the text itself */
  }
  return text.trim() ? [text.trim().slice(0, 500)] : [];
}

/** fetch's "fetch failed" hides the reason: say which daemon could not be reached and why. */
function unreachable(server: string, err: unknown): Error {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (err as Error).message;
  return new Error(
    `cannot reach the Boxyard daemon at ${server} (${why}): is it running? Set --server or BOXYARD_SERVER.`,
  );
}

/**
 * The one HTTP client of `boxyard mirror|import|export`: the daemon's URL, the token as Bearer,
 * JSON in and out, and the daemon's own error messages on failure.
 */
export class BoxyardClient {
  readonly server: string;
  private fetcher?: Promise<typeof fetch>;
  constructor(private readonly opts: ServerOptions) {
    this.server = opts.server.replace(/\/+$/, '');
  }

  url(path: string): string {
    return path.startsWith('http://') || path.startsWith('https://') ? path : `${this.server}${path}`;
  }

  /** The token goes only to the daemon itself, never to another host a catalog names. */
  headers(url: string, extra: Record<string, string> = {}): Record<string, string> {
    const own = new URL(url).origin === new URL(this.server).origin;
    return { ...(own && this.opts.token ? { authorization: `Bearer ${this.opts.token}` } : {}), ...extra };
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const url = this.url(path);
    this.fetcher ??= clientFetch(this.opts.caFile);
    const send = await this.fetcher;
    try {
      return await send(url, {
        ...init,
        headers: this.headers(url, init.headers as Record<string, string> | undefined),
      });
    } catch (err) {
      throw unreachable(this.server, err);
    }
  }

  /** A JSON request; any status but 2xx throws ApiError with the daemon's messages. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.fetch(path, {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new ApiError(res.status, errorMessages(text), `${method} ${path}`, text);
    return (text ? JSON.parse(text) : {}) as T;
  }

  /**
   * PUTs a file with Content-Length, streamed from disk (memory does not grow with its size);
   * `onBytes` hears of every chunk sent. Answers the parsed JSON body.
   */
  async putFile<T>(path: string, file: string, size: number, onBytes: (n: number) => void = () => {}): Promise<T> {
    const url = new URL(this.url(path));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const ca = this.opts.caFile ? caBundle(await readCaFile(this.opts.caFile)) : undefined;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          ...(ca ? { ca } : {}),
          method: 'PUT',
          headers: this.headers(url.toString(), {
            'content-type': 'application/octet-stream',
            'content-length': String(size),
            accept: 'application/json',
          }),
        },
        (res) => void readAnswer<T>(res, `PUT ${url.pathname}`).then(resolve, reject),
      );
      req.on('error', (err) => reject(unreachable(this.server, { cause: err })));
      const counted = new Transform({
        transform(chunk: Buffer, _e, cb) {
          onBytes(chunk.length);
          cb(null, chunk);
        },
      });
      const source = createReadStream(file, { highWaterMark: 1024 * 1024 });
      source.on('error', (err) => {
        reject(err);
        req.destroy();
      });
      source.pipe(counted).pipe(req);
    });
  }
}

async function readAnswer<T>(res: IncomingMessage, what: string): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) throw new ApiError(status, errorMessages(text), what, text);
  return JSON.parse(text) as T;
}

/** Whole numbers of command-line options (`--latest 3`); commander names the option in its message. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError('it must be a whole number of at least 1.');
  return n;
}

/** Repeated options (`--provider a --provider b`) and comma lists (`--provider a,b`) alike. */
export const collect = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];
