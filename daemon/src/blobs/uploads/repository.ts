import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema';
import type { UploadSessionsTable, UploadState } from './tables';
import { blobReferrer, type BlobReferrer } from '../holds';

export type UploadSessionRow = Selectable<UploadSessionsTable>;

/** The only SQL of upload sessions; a referrer of the blobs of direct uploads awaiting their callback. */
export class UploadRepository implements BlobReferrer {
  /** Stored direct uploads waiting for their callback: their blobs must not be collected. */
  readonly referencedBlobDigests: BlobReferrer['referencedBlobDigests'];
  readonly referencesBlob: BlobReferrer['referencesBlob'];

  constructor(private readonly db: Kysely<Database>) {
    const held = blobReferrer(db, (d) =>
      d.selectFrom('upload_sessions').select('blob_sha256 as sha256').where('state', '=', 'received'),
    );
    this.referencedBlobDigests = held.referencedBlobDigests;
    this.referencesBlob = held.referencesBlob;
  }

  async insert(row: Insertable<UploadSessionsTable>): Promise<void> {
    await this.db.insertInto('upload_sessions').values(row).execute();
  }

  bySecretHash(hash: string): Promise<UploadSessionRow | undefined> {
    return this.db.selectFrom('upload_sessions').selectAll().where('secret_hash', '=', hash).executeTakeFirst();
  }

  byId(id: string): Promise<UploadSessionRow | undefined> {
    return this.db.selectFrom('upload_sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Moves a session from one state to another; false when it was not in `from` (someone else won). */
  async transition(
    id: string,
    from: UploadState,
    patch: Partial<Omit<UploadSessionRow, 'id'>> & { state: UploadState },
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('upload_sessions')
      .set(patch)
      .where('id', '=', id)
      .where('state', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Makes `receiver` the session's PUT: from `open`, or from another PUT that is `receiving` (a
   * newer PUT takes over from a stalled one). False when the session is used up or gone.
   */
  async claim(id: string, receiver: string, now: string): Promise<boolean> {
    const r = await this.db
      .updateTable('upload_sessions')
      .set({ state: 'receiving', receiver, updated_at: now })
      .where('id', '=', id)
      .where('state', 'in', ['open', 'receiving'])
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Moves a receiving session on, if `receiver` is still its PUT; false when a newer PUT took over. */
  async settle(
    id: string,
    receiver: string,
    patch: Partial<Omit<UploadSessionRow, 'id'>> & { state: UploadState },
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('upload_sessions')
      .set({ ...patch, receiver: null })
      .where('id', '=', id)
      .where('state', '=', 'receiving')
      .where('receiver', '=', receiver)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Whether `receiver` is still the session's PUT. */
  async isReceiver(id: string, receiver: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('upload_sessions')
      .select('id')
      .where('id', '=', id)
      .where('state', '=', 'receiving')
      .where('receiver', '=', receiver)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A PUT still streaming says so, so that it is not taken for one that died with its daemon. */
  async touch(id: string, receiver: string, now: string): Promise<void> {
    await this.db
      .updateTable('upload_sessions')
      .set({ updated_at: now })
      .where('id', '=', id)
      .where('state', '=', 'receiving')
      .where('receiver', '=', receiver)
      .execute();
  }

  /** PUTs not heard of since `startedAt` died with their daemon (blobs/collector.ts): allow a retry. */
  async reopenReceiving(startedAt: string): Promise<number> {
    const r = await this.db
      .updateTable('upload_sessions')
      .set({ state: 'open', receiver: null })
      .where('state', '=', 'receiving')
      .where('updated_at', '<', startedAt)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Used-up sessions, and unused ones past their expiry (not those streaming right now). */
  async deleteFinished(now: string): Promise<number> {
    const r = await this.db
      .deleteFrom('upload_sessions')
      .where((eb) =>
        eb.or([
          eb('state', '=', 'done'),
          eb.and([eb('state', 'in', ['open', 'received']), eb('expires_at', '<=', now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /**
   * Staging folders that PUTs are streaming into now (named by receiver; by session id before receivers were recorded).
   */
  async liveIds(): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('upload_sessions')
      .select(['id', 'receiver'])
      .where('state', '=', 'receiving')
      .execute();
    return new Set(rows.map((r) => r.receiver ?? r.id));
  }
}
