import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { FsBlobStore } from '../blobs/fs-blob-store';
import { hashFile } from '../mirror/cli/files';
import { damageOf, openDataDb, type DataDb } from './database';
import { privateDir } from '../lib/private-files';
import { DataRepository, type BlobReference } from './repository';

export interface CheckOptions {
  dataDir: string;
  /** The database file in it (config.ts databaseFile). */
  databaseFile: string;
  /** Move corrupt blobs aside and make rows stop offering missing or corrupt ones. */
  repair: boolean;
  /** Told of each problem as it is found and dealt with (the CLI prints it). */
  onProblem?: (p: Problem) => void;
  now?: () => Date;
}

export interface Problem {
  /** What is wrong, in words. */
  text: string;
  /** What --repair did about it; null when nothing was (or could be) done. */
  repaired: string | null;
}

export interface CheckReport {
  blobs: number;
  bytes: number;
  /** Rows that name a blob (none checked when the database is damaged). */
  rows: number;
  /** SQLite's quick check failed: no repair helps, a backup does. */
  databaseDamaged: boolean;
  problems: Problem[];
  /** Problems still there at the end: all of them without --repair, what repair could not fix with it. */
  unresolved: number;
}

/** Where `check --repair` moves corrupt blobs (a backup leaves it out; nothing else reads it). */
export const QUARANTINE = 'quarantine';

type BlobState = { kind: 'good'; size: number } | { kind: 'corrupt' } | { kind: 'missing' };

/** What each kind of row does once its blob is gone (repository.ts detach). */
function detachedWords(ref: BlobReference): string {
  if (ref.kind === 'upload') return 'the direct upload is open again: PUT the file to its upload URL again';
  if (ref.kind === 'mirror-file') return 'the mirror job downloads the file again';
  if (ref.cached) return 'the pull-through cache fetches the file from its upstream again on the next download';
  return 'the provider is marked not uploaded (left out of the catalog) until its file is uploaded again';
}

/**
 * Verifies a data folder (docs/operations-and-security.md): the database passes SQLite's quick
 * check, every blob's content hashes to its name (streamed, 1 MiB at a time), and every row that
 * names a blob finds it present, intact, and of the size it records. Without `repair` nothing is
 * written (the database is opened read-only), so it runs beside a serving daemon. A blob that
 * vanishes mid-check was collected (no row named it any more) and is no problem; a row is
 * reported only if it still names the missing blob when read again.
 */
export async function check(opts: CheckOptions): Promise<CheckReport> {
  const run = new CheckRun(opts);
  try {
    return await run.run();
  } finally {
    await run.close();
  }
}

class CheckRun {
  private readonly store: FsBlobStore;
  private readonly data: DataDb;
  private readonly repo: DataRepository;
  private readonly problems: Problem[] = [];
  /** What the scan (or a later look) found for each blob. */
  private readonly states = new Map<string, BlobState>();
  private blobs = 0;
  private bytes = 0;

  constructor(private readonly opts: CheckOptions) {
    this.store = new FsBlobStore(opts.dataDir);
    this.data = openDataDb(opts.databaseFile, { readonly: !opts.repair });
    this.repo = new DataRepository(this.data.db);
  }

  close(): Promise<void> {
    return this.data.close();
  }

  private report(text: string): Problem {
    const p: Problem = { text, repaired: null };
    this.problems.push(p);
    return p;
  }

  private told(p: Problem): void {
    this.opts.onProblem?.(p);
  }

  private now(): string {
    return (this.opts.now?.() ?? new Date()).toISOString();
  }

  async run(): Promise<CheckReport> {
    const damage = damageOf(this.data.raw);
    if (damage.length) {
      this.told(
        this.report(
          `The database ${this.opts.databaseFile} is damaged (${damage.slice(0, 3).join('; ')}). Repair cannot fix that: stop the daemon, keep a copy of the data folder as it is, and restore the last backup into a new folder (boxyard restore --data NEWDIR BACKUP).`,
        ),
      );
    }
    for await (const b of this.store.list()) await this.scan(b.sha256);
    if (damage.length) return this.finish(this.problems.length, 0, true);
    const refs = await this.repo.references();
    for (const ref of refs) await this.checkReference(ref);
    const left = this.opts.repair ? await this.remaining() : this.problems.length;
    return this.finish(left, refs.length, false);
  }

  private finish(unresolved: number, rows: number, databaseDamaged: boolean): CheckReport {
    return { blobs: this.blobs, bytes: this.bytes, rows, databaseDamaged, problems: this.problems, unresolved };
  }

  /** Hashes one blob; a corrupt one is reported (and with --repair moved aside). */
  private async scan(sha256: string): Promise<BlobState> {
    let got: { size: number; digests: Record<string, string> };
    try {
      got = await hashFile(this.store.blobPath(sha256));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.states.set(sha256, { kind: 'missing' });
      return { kind: 'missing' };
    }
    this.blobs++;
    this.bytes += got.size;
    if (got.digests.sha256 === sha256) {
      this.states.set(sha256, { kind: 'good', size: got.size });
      return { kind: 'good', size: got.size };
    }
    this.states.set(sha256, { kind: 'corrupt' });
    const p = this.report(`The blob ${sha256} is corrupt: its ${got.size} bytes hash to ${got.digests.sha256}.`);
    if (this.opts.repair) p.repaired = `moved to ${await this.quarantine(sha256)}`;
    this.told(p);
    return { kind: 'corrupt' };
  }

  private async quarantine(sha256: string): Promise<string> {
    const dir = join(this.opts.dataDir, QUARANTINE);
    await privateDir(dir);
    const to = join(dir, `${sha256}.${this.now().replace(/[:.]/g, '-')}`);
    await rename(this.store.blobPath(sha256), to);
    return to;
  }

  /** A blob not seen by the scan may have been committed since: look (and hash) now. */
  private async stateOf(sha256: string): Promise<BlobState> {
    const known = this.states.get(sha256);
    if (known && known.kind !== 'missing') return known;
    return this.scan(sha256);
  }

  private async checkReference(ref: BlobReference): Promise<void> {
    const state = await this.stateOf(ref.sha256);
    if (state.kind === 'good') {
      if (ref.size === null || ref.size === state.size) return;
      const p = this.report(
        `The ${ref.label} records a size of ${ref.size} bytes, but its blob ${ref.sha256} holds ${state.size} (and is intact).`,
      );
      if (this.opts.repair)
        p.repaired = (await this.repo.fixSize(ref, state.size, this.now()))
          ? `recorded the blob's size, ${state.size} bytes`
          : 'the row changed meanwhile';
      this.told(p);
      return;
    }
    // Gone since the rows were read? Then the row changed too, or the blob came back: no problem.
    if (state.kind === 'missing' && (!(await this.repo.stillNames(ref)) || (await this.store.stat(ref.sha256)))) return;
    const p = this.report(`The ${ref.label} names the blob ${ref.sha256}, which is ${state.kind}.`);
    if (this.opts.repair)
      p.repaired = (await this.repo.detach(ref, this.now())) ? detachedWords(ref) : 'the row changed meanwhile';
    this.told(p);
  }

  /** After a repair: rows that still name a missing blob or record a wrong size (each reported again). */
  private async remaining(): Promise<number> {
    let left = this.problems.filter((p) => p.repaired === null).length;
    for (const ref of await this.repo.references()) {
      const blob = await this.store.stat(ref.sha256);
      if (blob && (ref.size === null || ref.size === blob.size) && this.states.get(ref.sha256)?.kind !== 'corrupt')
        continue;
      if (!(await this.repo.stillNames(ref))) continue;
      left++;
      this.told(
        this.report(
          `After the repair, the ${ref.label} still names the blob ${ref.sha256}, which is ${blob ? 'not as recorded' : 'missing'}.`,
        ),
      );
    }
    return left;
  }
}
