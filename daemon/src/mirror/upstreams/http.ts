import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Clock } from '../../lib/clock';
import { AddressNotAllowedError, OfflineError, UpstreamError } from '../../lib/errors';
import type { UpstreamRepository, UpstreamRow } from './repository';
import { reachFor, type Outbound } from './outbound';
import { networkWords } from './network-words';

const MAX_REDIRECTS = 10;

/**
 * A URL as messages show it: no query and no user info. Messages reach the upstream's failures
 * (`last_error`), job messages the target's members read, and the cache's clients; a redirect's
 * query is often a signed URL.
 */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/** A failure that may pass: the network, a timeout, a 5xx or 429, a broken or short body. Worth a retry. */
export class TransientUpstreamError extends UpstreamError {}
/** The upstream refused the token (401) or the caller (403): its own words are in the message. */
export class UpstreamRefusedError extends UpstreamError {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface GateSettings {
  isOffline(): Promise<boolean>;
}
export interface GetOptions {
  accept?: string;
  range?: number;
  signal?: AbortSignal;
  method?: 'GET' | 'HEAD';
  /** A connection test the user asked for: tried even while the breaker pauses the upstream. */
  ignorePause?: boolean;
}

/**
 * Every outbound connection goes through here: the offline switch (no connection at all), the
 * circuit breaker per upstream (after `max_failures` failures in a row it is not asked for
 * `pause_minutes`, as Verdaccio's max_fails/fail_timeout), and the upstream's timeout.
 */
export class UpstreamGate {
  constructor(
    private readonly repo: UpstreamRepository,
    private readonly settings: GateSettings,
    private readonly clock: Clock,
    private readonly outbound: Outbound,
  ) {}

  isOffline = (): Promise<boolean> => this.settings.isOffline();

  /** Throws when no connection may be opened to `u` now. */
  async check(u: UpstreamRow, ignorePause = false): Promise<void> {
    if (await this.settings.isOffline()) {
      throw new OfflineError(
        `Boxyard is offline: it opens no connection to upstream "${u.name}". Switch offline mode off in settings to reach it.`,
      );
    }
    if (ignorePause) return;
    const fresh = (await this.repo.upstream(u.id)) ?? u;
    if (fresh.paused_until && fresh.paused_until > this.clock.now().toISOString()) {
      throw new UpstreamError(
        `Upstream "${u.name}" failed ${fresh.failures} times in a row and is paused until ${fresh.paused_until} (last error: ${fresh.last_error ?? 'unknown'}).`,
      );
    }
  }

  async succeeded(u: UpstreamRow): Promise<void> {
    const fresh = await this.repo.upstream(u.id);
    if (fresh && (fresh.failures > 0 || fresh.paused_until || fresh.last_error)) {
      await this.repo.updateUpstream(u.id, { failures: 0, paused_until: null, last_error: null });
    }
  }

  /**
   * A failure that is not the network's (the upstream answered 404, or sent what is not a catalog), from a test or a
   * job: its health shows it until the next answer that succeeds, but the breaker does not count it.
   */
  async noted(u: UpstreamRow, message: string): Promise<void> {
    await this.repo.updateUpstream(u.id, { last_error: message.slice(0, 1000) });
  }

  async failed(u: UpstreamRow, message: string): Promise<void> {
    const fresh = (await this.repo.upstream(u.id)) ?? u;
    const failures = fresh.failures + 1;
    const pause =
      failures >= fresh.max_failures
        ? new Date(this.clock.now().getTime() + fresh.pause_minutes * 60_000).toISOString()
        : null;
    await this.repo.updateUpstream(u.id, { failures, paused_until: pause, last_error: message.slice(0, 1000) });
  }

  /**
   * A GET to the upstream. Redirects are followed by hand (at most 10, loops refused) so the token
   * goes only to the upstream's own host, as vagrant sends it (AddDownloaderAuthentication: only
   * when the host equals the server's). Network errors, timeouts and 5xx count against the
   * breaker; any other non-2xx answer is an upstream error that does not.
   * `signal` aborts the whole exchange, body included; the timeout covers the answer's headers.
   */
  async get(u: UpstreamRow, url: string, opts: GetOptions = {}): Promise<Response> {
    const res = await this.find(u, url, opts);
    if (!res)
      throw new UpstreamError(`Upstream "${u.name}" answered 404 for ${shown(url)}: no such box or file there.`);
    return res;
  }

  /** As `get`, but null when the upstream answers 404 or 410 (the pull-through cache's "not there"). */
  async find(u: UpstreamRow, url: string, opts: GetOptions = {}): Promise<Response | null> {
    await this.check(u, opts.ignorePause);
    const home = new URL(u.url).origin;
    const seen = new Set<string>();
    let current = url;
    for (let hop = 0; ; hop++) {
      if (seen.has(current) || hop > MAX_REDIRECTS) {
        throw new UpstreamError(`Upstream "${u.name}" redirects in a loop (${hop} redirects from ${shown(url)}).`);
      }
      seen.add(current);
      const res = await this.send(u, current, home, opts);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        current = new URL(location, current).toString();
        if (!/^https?:$/.test(new URL(current).protocol))
          throw new UpstreamError(`Upstream "${u.name}" redirected to ${shown(current)}, which is not http or https.`);
        continue;
      }
      if (res.status >= 500 || res.status === 429) {
        await res.body?.cancel();
        const message = `Upstream "${u.name}" answered ${res.status} for ${shown(current)}.`;
        await this.failed(u, message);
        throw new TransientUpstreamError(message);
      }
      // A resume asked past the end: the caller checks what it already holds.
      if (res.status === 416 && opts.range) return res;
      if (res.status === 401 || res.status === 403) {
        await this.succeeded(u);
        throw new UpstreamRefusedError(
          res.status,
          `Upstream "${u.name}" answered ${res.status} for ${shown(current)}${await saying(res)}: ${
            res.status === 401 ? 'it refuses the token' : 'the token may not see this'
          }${u.token ? '' : ' (the upstream has no token)'}.`,
        );
      }
      if (!res.ok) {
        await res.body?.cancel();
        await this.succeeded(u);
        if (res.status === 404 || res.status === 410) return null;
        throw new UpstreamError(`Upstream "${u.name}" answered ${res.status} for ${shown(current)}.`);
      }
      await this.succeeded(u);
      return res;
    }
  }

  private async send(u: UpstreamRow, url: string, home: string, opts: GetOptions): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': 'Boxyard (mirror)' };
    if (opts.accept) headers.accept = opts.accept;
    if (opts.range) headers.range = `bytes=${opts.range}-`;
    // HCP's composite `VC_TOKEN;HCP_TOKEN` is sent verbatim, as vagrant sends whatever token it has;
    // only to the upstream's own origin (vagrant compares hosts; the scheme too keeps it off plain http).
    if (u.token && new URL(url).origin === home) headers.authorization = `Bearer ${u.token}`;
    // The timeout covers connecting and the answer's headers; bodies are guarded by idleTimeout().
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), u.timeout_seconds * 1000);
    try {
      const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
      return await this.outbound.fetch(
        url,
        { method: opts.method ?? 'GET', headers, redirect: 'manual', signal },
        reachFor(u, url),
      );
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      // A refused address is the upstream's definition, not its failure: the breaker does not count it.
      // Named by host only: a redirect's path and query (a signed URL) are not for whoever asked.
      if (err instanceof AddressNotAllowedError)
        throw new AddressNotAllowedError(`Upstream "${u.name}" leads to a host Boxyard may not reach: ${err.message}`);
      const why = networkWords(url, err, timeout.signal.aborted ? u.timeout_seconds : undefined);
      const message = `Cannot reach upstream "${u.name}": ${why} (${shown(url)}).`;
      await this.failed(u, message);
      throw new TransientUpstreamError(message);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The body of an upstream answer as a Node stream that fails (and so cancels the download)
   * when no byte arrives for the upstream's timeout: a stalled host counts against its breaker.
   */
  body(u: UpstreamRow, res: Response): Readable {
    if (!res.body)
      throw new UpstreamError(`Upstream "${u.name}" answered ${res.status} without a body (${shown(res.url)}).`);
    const source = Readable.fromWeb(res.body as WebReadableStream);
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const message = `Upstream "${u.name}" sent nothing for ${u.timeout_seconds} s (${shown(res.url)}).`;
        void this.failed(u, message).catch(() => undefined);
        guarded.destroy(new TransientUpstreamError(message));
      }, u.timeout_seconds * 1000);
    };
    const guarded = new Transform({
      transform(chunk, _enc, cb) {
        arm();
        cb(null, chunk);
      },
      flush(cb) {
        clearTimeout(timer);
        cb();
      },
    });
    guarded.on('close', () => {
      clearTimeout(timer);
      source.destroy();
    });
    // A reader that holds back (a slow disk, a slow client, hashing staged bytes) is not a stalled upstream.
    guarded.on('pause', () => clearTimeout(timer));
    guarded.on('resume', arm);
    arm();
    source.on('error', (err) => guarded.destroy(err));
    return source.pipe(guarded);
  }
}

/** What an upstream said in its refusal (Vagrant Cloud's `{"errors":[…]}`), quoted; read up to 4 KiB. */
async function saying(res: Response): Promise<string> {
  const text = await readSome(res, 4096);
  try {
    const errors = (JSON.parse(text) as { errors?: unknown }).errors;
    const said = Array.isArray(errors)
      ? errors
          .map((e) => (typeof e === 'string' ? e : ((e as { detail?: string })?.detail ?? '')))
          .filter(Boolean)
          .join('; ')
      : '';
    return said ? ` ("${said.slice(0, 300)}")` : '';
  } catch {
    return '';
  }
}

async function readSome(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    return '';
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, limit);
}
