import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../../store/schema';
import type { UpstreamsTable } from '../tables';

/** An upstream with its owner as they are now: null for the daemon's own, or a user since deleted. */
export type UpstreamRow = Selectable<UpstreamsTable> & { owner_admin: number | null; owner_name: string | null };

/** The only SQL of upstreams (upstreams/service.ts writes them; the gate, jobs and the cache read them). */
export class UpstreamRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Upstreams with what their owner is now: whether an administrator (rights are read when they
   * are used: outbound.ts's reachFor), and the owner's name (the API says whose an upstream is).
   */
  private upstreamRows() {
    return this.db
      .selectFrom('upstreams')
      .leftJoin('users as owner', 'owner.id', 'upstreams.created_by')
      .selectAll('upstreams')
      .select(['owner.is_admin as owner_admin', 'owner.username as owner_name']);
  }
  upstream(id: string): Promise<UpstreamRow | undefined> {
    return this.upstreamRows().where('upstreams.id', '=', id).executeTakeFirst();
  }
  /** Every upstream (`null`), or those `createdBy` made. */
  upstreams(createdBy: string | null): Promise<UpstreamRow[]> {
    let q = this.upstreamRows();
    if (createdBy) q = q.where('upstreams.created_by', '=', createdBy);
    return q.orderBy('upstreams.name_key').execute();
  }
  /** The daemon's own upstream (`--upstream`): the one no user made. */
  systemUpstream(): Promise<UpstreamRow | undefined> {
    return this.upstreamRows()
      .where('upstreams.created_by', 'is', null)
      .where('upstreams.name_key', 'like', 'pull-through%')
      .orderBy('upstreams.created_at')
      .executeTakeFirst();
  }
  /** `owner`'s upstream of this name (names are unique per owner; null: the daemon's own). */
  upstreamNamed(owner: string | null, nameKey: string): Promise<UpstreamRow | undefined> {
    return this.upstreamRows()
      .where('upstreams.name_key', '=', nameKey)
      .where('upstreams.created_by', owner === null ? 'is' : '=', owner)
      .executeTakeFirst();
  }
  async insertUpstream(row: Insertable<UpstreamsTable>) {
    await this.db.insertInto('upstreams').values(row).execute();
  }
  async updateUpstream(id: string, patch: Updateable<UpstreamsTable>) {
    await this.db.updateTable('upstreams').set(patch).where('id', '=', id).execute();
  }
  async deleteUpstream(id: string) {
    await this.db.deleteFrom('upstreams').where('id', '=', id).execute();
  }
}
