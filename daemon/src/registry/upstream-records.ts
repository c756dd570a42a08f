import type { Selectable } from 'kysely';
import type { Db } from './box-query';
import type { MirroredBoxesTable } from './tables';

export type MirroredBoxRow = Selectable<MirroredBoxesTable>;

/** A box's version with what a mirror last took from the upstream for its description (null: nothing). */
export interface FollowedVersion {
  id: string;
  version: string;
  description: string;
  status: string;
  mirror_id: string | null;
  synced: string | null;
}

/**
 * The only SQL of `mirrored_boxes` and `mirrored_versions`: what a mirror last took from its
 * upstream for a box and its versions (registry/versions/follow-upstream.ts).
 */
export class UpstreamRecords {
  constructor(private readonly db: Db) {}

  box(boxId: string, db: Db = this.db): Promise<MirroredBoxRow | undefined> {
    return db.selectFrom('mirrored_boxes').selectAll().where('box_id', '=', boxId).executeTakeFirst();
  }

  async saveBox(row: MirroredBoxRow, db: Db = this.db): Promise<void> {
    const { box_id: _, ...rest } = row;
    await db
      .insertInto('mirrored_boxes')
      .values(row)
      .onConflict((oc) => oc.column('box_id').doUpdateSet(rest))
      .execute();
  }

  versions(boxId: string, db: Db = this.db): Promise<FollowedVersion[]> {
    return db
      .selectFrom('box_versions')
      .leftJoin('mirrored_versions', 'mirrored_versions.version_id', 'box_versions.id')
      .select([
        'box_versions.id',
        'box_versions.version',
        'box_versions.description',
        'box_versions.status',
        'box_versions.mirror_id',
        'mirrored_versions.description as synced',
      ])
      .where('box_versions.box_id', '=', boxId)
      .execute();
  }

  async saveVersion(versionId: string, description: string, syncedAt: string, db: Db = this.db): Promise<void> {
    await db
      .insertInto('mirrored_versions')
      .values({ version_id: versionId, description, synced_at: syncedAt })
      .onConflict((oc) => oc.column('version_id').doUpdateSet({ description, synced_at: syncedAt }))
      .execute();
  }
}
