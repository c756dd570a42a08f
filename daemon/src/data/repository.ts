import { inTransaction } from '../store/transaction';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { ACTIVE_JOB_STATES } from '../contract/wire/mirror';

/** The three kinds of row that name a blob (the collector keeps exactly these: collector.ts). */
export type ReferenceKind = 'provider' | 'upload' | 'mirror-file';

/** One row that names a blob by its sha256. */
export interface BlobReference {
  kind: ReferenceKind;
  id: string;
  sha256: string;
  /** The size the row records, if any. */
  size: number | null;
  /** How a person names the row: `provider virtualbox (amd64) of lab/web 1.0.0`. */
  label: string;
  /** A provider the pull-through cache fetched from its upstream (it can fetch it again). */
  cached: boolean;
}

interface ProviderNaming {
  name: string;
  architecture: string;
  version: string;
  box: string;
  owner: string | null;
}
const providerLabel = (p: ProviderNaming): string =>
  `provider ${p.name} (${p.architecture}) of ${p.owner ?? '?'}/${p.box} ${p.version}`;

/**
 * The only SQL of backup, restore and check: which rows name blobs, and how `check --repair`
 * makes a row whose blob is gone stop offering it. Runs on the live database and on a backup's
 * copy alike (it needs nothing but the schema).
 */
export class DataRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Every row that names a blob, read in one transaction (a consistent picture). */
  references(): Promise<BlobReference[]> {
    return inTransaction(this.db, async (trx) => {
      const repo = new DataRepository(trx);
      return [
        ...(await repo.providerReferences()),
        ...(await repo.uploadReferences()),
        ...(await repo.mirrorFileReferences()),
      ];
    });
  }

  /** The distinct digests `references()` names. */
  async referencedDigests(): Promise<Set<string>> {
    return new Set((await this.references()).map((r) => r.sha256));
  }

  /** Whether the row still names that blob now (a check re-reads before it reports). */
  async stillNames(ref: BlobReference): Promise<boolean> {
    const fresh = (await this.references()).find((r) => r.kind === ref.kind && r.id === ref.id);
    return fresh?.sha256 === ref.sha256;
  }

  private providers() {
    return this.db
      .selectFrom('box_providers as p')
      .innerJoin('box_versions as v', 'v.id', 'p.version_id')
      .innerJoin('boxes as b', 'b.id', 'v.box_id')
      .leftJoin('users as u', 'u.id', 'b.user_id')
      .leftJoin('organizations as o', 'o.id', 'b.organization_id')
      .select(['p.id', 'p.name', 'p.architecture', 'v.version', 'b.name as box'])
      .select((eb) => eb.fn.coalesce('u.username', 'o.name').as('owner'));
  }

  private async providerReferences(): Promise<BlobReference[]> {
    const rows = await this.providers()
      .select(['p.blob_sha256', 'p.size', 'p.source_url'])
      .where('p.blob_sha256', 'is not', null)
      .$narrowType<{ blob_sha256: string }>()
      .execute();
    return rows.map((r) => ({
      kind: 'provider',
      id: r.id,
      sha256: r.blob_sha256,
      size: r.size,
      label: providerLabel(r),
      cached: r.source_url !== null,
    }));
  }

  private async uploadReferences(): Promise<BlobReference[]> {
    const sessions = await this.db
      .selectFrom('upload_sessions')
      .select(['id', 'provider_id', 'blob_sha256', 'blob_size'])
      .where('state', '=', 'received')
      .where('blob_sha256', 'is not', null)
      .$narrowType<{ blob_sha256: string }>()
      .execute();
    if (!sessions.length) return [];
    const providers = new Map(
      (
        await this.providers()
          .where(
            'p.id',
            'in',
            sessions.map((s) => s.provider_id),
          )
          .execute()
      ).map((p) => [p.id, p]),
    );
    return sessions.map((s) => {
      const p = providers.get(s.provider_id);
      return {
        kind: 'upload',
        id: s.id,
        sha256: s.blob_sha256,
        size: s.blob_size,
        cached: false,
        label: `direct upload ${s.id} (waiting for its callback) of ${p ? providerLabel(p) : `provider ${s.provider_id}`}`,
      };
    });
  }

  private async mirrorFileReferences(): Promise<BlobReference[]> {
    const rows = await this.db
      .selectFrom('mirror_files as f')
      .innerJoin('mirror_jobs as j', 'j.id', 'f.job_id')
      .select(['f.id', 'f.url', 'f.blob_sha256', 'f.blob_size', 'j.id as job'])
      .where('j.state', 'in', [...ACTIVE_JOB_STATES])
      .where('f.blob_sha256', 'is not', null)
      .$narrowType<{ blob_sha256: string }>()
      .execute();
    return rows.map((r) => ({
      kind: 'mirror-file',
      id: r.id,
      sha256: r.blob_sha256,
      size: r.blob_size,
      cached: false,
      label: `file ${r.url} of mirror job ${r.job} (not published yet)`,
    }));
  }

  /**
   * The row stops offering a blob that is gone, as each owner of the row expects:
   * - a provider is "not uploaded" again (left out of the catalog, 404 on download, uploadable
   *   anew), as Vagrant Cloud shows a provider without a file; one the pull-through cache fetched
   *   is fetched from its upstream again on the next download;
   * - a direct upload waiting for its callback is open again (the same URL takes the PUT);
   * - a mirror job's finished file is pending again (the job downloads it again).
   * Only while the row still names that blob: a change made meanwhile wins. True when changed.
   */
  async detach(ref: BlobReference, now: string): Promise<boolean> {
    let changed: bigint;
    if (ref.kind === 'provider') {
      const r = await this.db
        .updateTable('box_providers')
        .set({ blob_sha256: null, size: null, updated_at: now })
        .where('id', '=', ref.id)
        .where('blob_sha256', '=', ref.sha256)
        .executeTakeFirst();
      changed = r.numUpdatedRows;
    } else if (ref.kind === 'upload') {
      const r = await this.db
        .updateTable('upload_sessions')
        .set({ state: 'open', blob_sha256: null, blob_size: null, updated_at: now })
        .where('id', '=', ref.id)
        .where('state', '=', 'received')
        .where('blob_sha256', '=', ref.sha256)
        .executeTakeFirst();
      changed = r.numUpdatedRows;
    } else {
      const r = await this.db
        .updateTable('mirror_files')
        .set({ state: 'pending', blob_sha256: null, blob_size: null, bytes_done: 0 })
        .where('id', '=', ref.id)
        .where('blob_sha256', '=', ref.sha256)
        .executeTakeFirst();
      changed = r.numUpdatedRows;
    }
    return changed === 1n;
  }

  /** The row records the wrong size of an intact blob: record the blob's. True when changed. */
  async fixSize(ref: BlobReference, size: number, now: string): Promise<boolean> {
    const r =
      ref.kind === 'provider'
        ? await this.db
            .updateTable('box_providers')
            .set({ size, updated_at: now })
            .where('id', '=', ref.id)
            .where('blob_sha256', '=', ref.sha256)
            .executeTakeFirst()
        : ref.kind === 'upload'
          ? await this.db
              .updateTable('upload_sessions')
              .set({ blob_size: size, updated_at: now })
              .where('id', '=', ref.id)
              .where('blob_sha256', '=', ref.sha256)
              .executeTakeFirst()
          : await this.db
              .updateTable('mirror_files')
              .set({ blob_size: size })
              .where('id', '=', ref.id)
              .where('blob_sha256', '=', ref.sha256)
              .executeTakeFirst();
    return r.numUpdatedRows === 1n;
  }
}
