import { createReadStream } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { nameKey } from '../../contract/names';
import { ForbiddenError, UpstreamError } from '../../lib/errors';
import { ExportManifest, MANIFEST_FILE, UpstreamBoxInfo, UpstreamCatalog } from './catalog-schema';
import type { UpstreamRow } from './repository';
import { TOKEN_CHECK_WORDS, type UpstreamKind } from '../../contract/wire/mirror';
import { UpstreamRefusedError, type UpstreamGate } from './http';
import { boundedText, parseJson } from './read-json';
import { checkToken } from './token-check';

/** The bytes of one upstream file from `offset` on (0 when the upstream ignored the range). */
export interface OpenedFile {
  body: Readable;
  offset: number;
  size: number | null;
}
export interface FetchedCatalog {
  catalog: UpstreamCatalog;
  base: string;
}

/** What mirroring and the cache read from any kind of upstream. */
export interface UpstreamSource {
  /** The catalog of `box` ("ORG/BOX"); null when the upstream has no such box. */
  catalog(box: string, signal?: AbortSignal): Promise<FetchedCatalog | null>;
  /**
   * What the upstream says of the box beyond its catalog (a registry's box API, an export's
   * catalog); null when it has no such thing (a catalog URL, a server without a box API).
   */
  info(box: string, signal?: AbortSignal): Promise<UpstreamBoxInfo | null>;
  /** Every box ("ORG/BOX") of an organization. */
  listBoxes(org: string, signal?: AbortSignal): Promise<string[]>;
  open(url: string, offset: number, signal?: AbortSignal): Promise<OpenedFile>;
  /** The file's size when the upstream tells it (for progress and ETA), else null. */
  size(url: string, signal?: AbortSignal): Promise<number | null>;
  /** A connection test: asks what shows the upstream answers (and takes its token); says what answered. */
  probe(signal?: AbortSignal): Promise<string>;
}

/**
 * Where an upstream URL points: the network (http or https, compared once parsed, whatever its
 * case) or the daemon's disk (an absolute path or a file: URL). Any other scheme is neither.
 */
export function locationOf(url: string): 'network' | 'disk' | null {
  if (isAbsolute(url)) return 'disk';
  try {
    const protocol = new URL(url).protocol;
    return protocol === 'file:' ? 'disk' : protocol === 'http:' || protocol === 'https:' ? 'network' : null;
  } catch {
    return null;
  }
}

/** The kind an upstream URL names: an export folder, one catalog JSON, or a registry. */
export function detectKind(url: string): UpstreamKind {
  if (locationOf(url) === 'disk') return /\.json$/i.test(url) ? 'catalog' : 'folder';
  return /\.json$/i.test(new URL(url).pathname) ? 'catalog' : 'registry';
}

const toPath = (url: string): string => (isAbsolute(url) ? resolve(url) : fileURLToPath(url));
const seg = encodeURIComponent;
const splitBox = (box: string) => box.split('/').map(seg).join('/');

/** Vagrant Cloud, HCP Vagrant or another Boxyard: `GET BASE/ORG/BOX` as `vagrant box add` reads it. */
class HttpSource implements UpstreamSource {
  constructor(
    private readonly u: UpstreamRow,
    private readonly gate: UpstreamGate,
    private readonly single: boolean,
  ) {}

  private get base() {
    return this.u.url.replace(/\/+$/, '');
  }

  async catalog(box: string, signal?: AbortSignal): Promise<FetchedCatalog | null> {
    const url = this.single ? this.u.url : `${this.base}/${splitBox(box)}`;
    const res = await this.gate.find(this.u, url, { accept: 'application/json', signal });
    if (!res) return null;
    return {
      catalog: parseJson(this.u, UpstreamCatalog, await boundedText(this.u, this.gate, res), url),
      base: res.url || url,
    };
  }

  async info(box: string, signal?: AbortSignal): Promise<UpstreamBoxInfo | null> {
    if (this.single) return null;
    // HCP Vagrant and newer servers answer v2; Vagrant Cloud's older API v1. A server with neither has only catalogs.
    for (const api of ['v2', 'v1']) {
      const url = `${this.base}/api/${api}/box/${splitBox(box)}`;
      // A server that lets the catalog be read but not its API has, for this copy, only the catalog.
      const res = await this.gate.find(this.u, url, { accept: 'application/json', signal }).catch((err: unknown) => {
        if (err instanceof UpstreamRefusedError) return null;
        throw err;
      });
      if (res) return parseJson(this.u, UpstreamBoxInfo, await boundedText(this.u, this.gate, res), url);
    }
    return null;
  }

  async listBoxes(org: string, signal?: AbortSignal): Promise<string[]> {
    if (this.single) {
      const c = await this.catalog(org, signal);
      return c?.catalog.name ? [c.catalog.name] : [];
    }
    // Vagrant Cloud's API v1; HCP Vagrant and newer servers also answer v2.
    let url = `${this.base}/api/v1/user/${seg(org)}`;
    let res = await this.gate.find(this.u, url, { accept: 'application/json', signal });
    if (!res) {
      url = `${this.base}/api/v2/user/${seg(org)}`;
      res = await this.gate.get(this.u, url, { accept: 'application/json', signal });
    }
    const doc = parseJson(
      this.u,
      z.object({ boxes: z.array(z.object({ name: z.string() })).max(10_000) }),
      await boundedText(this.u, this.gate, res),
      url,
    );
    return doc.boxes.map((b) => `${org}/${b.name}`);
  }

  async probe(signal?: AbortSignal): Promise<string> {
    const opts = { accept: 'application/json', signal, ignorePause: true };
    if (this.single) {
      const res = await this.gate.get(this.u, this.u.url, opts);
      const c = parseJson(this.u, UpstreamCatalog, await boundedText(this.u, this.gate, res), this.u.url);
      return `its catalog of ${c.name ?? 'a box'} (${c.versions.length} versions) was read`;
    }
    // With a token, the check a plan makes (token-check.ts); without, a search anyone may run.
    if (this.u.token) return TOKEN_CHECK_WORDS[await checkToken(this.u, this.gate, opts)];
    const url = `${this.base}/api/v1/search?limit=1`;
    const res = await this.gate.get(this.u, url, opts);
    parseJson(this.u, z.object({}).passthrough(), await boundedText(this.u, this.gate, res), url);
    return 'its search answered (no token is set)';
  }

  async size(url: string, signal?: AbortSignal): Promise<number | null> {
    if (locationOf(url) !== 'network') return null;
    // Only for progress: an upstream that cannot say (no HEAD, an error) is asked again by the download.
    const res = await this.gate.find(this.u, url, { method: 'HEAD', signal }).catch((err: unknown) => {
      if (err instanceof UpstreamError) return null;
      throw err;
    });
    const length = res?.headers.get('content-length');
    return length ? Number(length) : null;
  }

  async open(url: string, offset: number, signal?: AbortSignal): Promise<OpenedFile> {
    if (locationOf(url) !== 'network')
      throw new UpstreamError(
        `Upstream "${this.u.name}" names a file at ${url}: only http and https URLs are fetched from it.`,
      );
    const res = await this.gate.get(this.u, url, { range: offset || undefined, signal });
    if (res.status === 416) {
      // Everything was staged before an interruption: nothing is left to fetch (else start over).
      await res.body?.cancel();
      const total = Number(/\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1] ?? NaN);
      if (total === offset) return { body: Readable.from([]), offset, size: total };
      return this.open(url, 0, signal);
    }
    const partial = res.status === 206 && offset > 0;
    const length = res.headers.get('content-length');
    const body = this.gate.body(this.u, res);
    return {
      body,
      offset: partial ? offset : 0,
      size: length === null ? null : Number(length) + (partial ? offset : 0),
    };
  }
}

/** A folder written by `boxyard export` (or one catalog file on disk): never reads outside it. */
class FolderSource implements UpstreamSource {
  private readonly root: string;
  constructor(
    private readonly u: UpstreamRow,
    private readonly single: boolean,
  ) {
    this.root = single ? dirname(toPath(u.url)) : toPath(u.url);
  }

  /** The path, if it is inside the folder once links are followed. */
  private async inside(path: string): Promise<string> {
    const real = async (p: string) => realpath(p).catch(() => resolve(p));
    const rel = relative(await real(this.root), await real(path));
    if (rel.startsWith('..') || isAbsolute(rel))
      throw new UpstreamError(`Upstream "${this.u.name}" names ${path}, outside its folder ${this.root}.`);
    return path;
  }

  private async read(path: string): Promise<string | null> {
    try {
      return await readFile(await this.inside(path), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (err instanceof UpstreamError) throw err;
      throw new UpstreamError(`Cannot read upstream "${this.u.name}" at ${path}: ${(err as Error).message}.`);
    }
  }

  private async manifest() {
    const path = resolve(this.root, MANIFEST_FILE);
    const text = await this.read(path);
    if (text === null)
      throw new UpstreamError(
        `Upstream "${this.u.name}": ${this.root} has no ${MANIFEST_FILE}; is it a folder written by boxyard export?`,
      );
    return parseJson(this.u, ExportManifest, text, path);
  }

  async catalog(box: string): Promise<FetchedCatalog | null> {
    let path = toPath(this.u.url);
    if (!this.single) {
      const entry = (await this.manifest()).boxes.find((b) => nameKey(b.name) === nameKey(box));
      if (!entry) return null;
      path = resolve(this.root, entry.catalog);
    }
    const text = await this.read(path);
    if (text === null) return null;
    return { catalog: parseJson(this.u, UpstreamCatalog, text, path), base: pathToFileURL(path).toString() };
  }

  /** An export's catalog carries what the box API would say (mirror/export/layout.ts). */
  async info(box: string): Promise<UpstreamBoxInfo | null> {
    if (this.single) return null;
    const c = await this.catalog(box);
    return c ? (c.catalog as UpstreamBoxInfo) : null;
  }

  async listBoxes(org: string): Promise<string[]> {
    if (this.single) {
      const c = await this.catalog(org);
      return c?.catalog.name ? [c.catalog.name] : [];
    }
    return (await this.manifest()).boxes.map((b) => b.name).filter((n) => nameKey(n).startsWith(`${nameKey(org)}/`));
  }

  async probe(): Promise<string> {
    if (this.single) {
      const c = await this.catalog('');
      if (!c) throw new UpstreamError(`Upstream "${this.u.name}": there is no file ${toPath(this.u.url)}.`);
      return `its catalog of ${c.catalog.name ?? 'a box'} (${c.catalog.versions.length} versions) was read`;
    }
    const m = await this.manifest();
    return `its export manifest lists ${m.boxes.length} boxes and ${m.files.length} files`;
  }

  async size(url: string): Promise<number | null> {
    if (locationOf(url) !== 'disk' || isAbsolute(url)) return null;
    const s = await stat(await this.inside(fileURLToPath(url))).catch(() => null);
    return s?.isFile() ? s.size : null;
  }

  async open(url: string, offset: number): Promise<OpenedFile> {
    if (locationOf(url) !== 'disk' || isAbsolute(url))
      throw new UpstreamError(`Upstream "${this.u.name}" names ${url}: a folder upstream serves only its own files.`);
    const path = await this.inside(fileURLToPath(url));
    const s = await stat(path).catch(() => null);
    if (!s?.isFile()) throw new UpstreamError(`Upstream "${this.u.name}" has no file ${path}.`);
    const from = Math.min(offset, s.size);
    return { body: createReadStream(path, { start: from, highWaterMark: 1024 * 1024 }), offset: from, size: s.size };
  }
}

/**
 * The source for an upstream row: folders are read from disk (with the daemon's rights: only an
 * administrator's upstream may be one, checked again here for rows older than that rule);
 * everything else goes through the gate.
 */
export function sourceFor(u: UpstreamRow, gate: UpstreamGate): UpstreamSource {
  if (!isRemote(u)) {
    if (u.restricted === 1 || u.owner_admin === 0)
      throw new ForbiddenError(
        `Upstream "${u.name}" is a folder on the daemon's disk, which only an administrator's upstream may read.`,
      );
    return new FolderSource(u, u.kind === 'catalog');
  }
  return new HttpSource(u, gate, u.kind === 'catalog');
}

/** Whether reading `u` opens a network connection (offline mode forbids those; folders are fine). */
export const isRemote = (u: Pick<UpstreamRow, 'url'>): boolean => locationOf(u.url) !== 'disk';
