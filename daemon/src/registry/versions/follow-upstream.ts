import type { Db } from '../box-query';
import type { BoxRecord, RegistryRepository } from '../repository';

/** What a mirror's upstream says of a box now (visibility already as the mirror decides it). */
export interface UpstreamFields {
  short_description: string;
  description: string;
  private: boolean;
  /** Every version the upstream shows, revoked ones too. */
  versions: Array<{ version: string; description: string; status: string }>;
  /** Revoke a mirrored version the upstream revoked. */
  revocations: boolean;
  mirrorId: string;
}

export interface Followed {
  /** Box fields changed to the upstream's. */
  changed: string[];
  /** Versions whose description changed to the upstream's. */
  described: string[];
  revoked: string[];
}

type TextField = 'short_description' | 'description';

/**
 * Brings a mirrored box in line with its upstream, field by field, within the publish's
 * transaction. A field whose local value still equals what the mirror last took from the
 * upstream was not edited here: it takes the upstream's new value. One edited here is left
 * alone. A box the mirror has no record of (made here, or by a mirror before records were kept)
 * takes the upstream's descriptions, but never becomes more visible than it is. Versions follow
 * only when a mirror made them. What the upstream said is recorded each time.
 */
export async function followUpstream(
  trx: Db,
  repo: RegistryRepository,
  box: BoxRecord,
  want: UpstreamFields,
  now: string,
): Promise<Followed> {
  const rec = await repo.records.box(box.id, trx);
  const patch: Partial<Record<TextField, string>> & { private?: number } = {};
  for (const k of ['short_description', 'description'] as const) {
    if (box[k] !== want[k] && (!rec || box[k] === rec[k])) patch[k] = want[k];
  }
  const isPrivate = box.private === 1;
  if (isPrivate !== want.private && (rec ? isPrivate === (rec.private === 1) : want.private))
    patch.private = want.private ? 1 : 0;
  const changed = Object.keys(patch);
  if (changed.length) await repo.updateBox(box.id, { ...patch, updated_at: now }, trx);
  await repo.records.saveBox(
    {
      box_id: box.id,
      mirror_id: want.mirrorId,
      short_description: want.short_description,
      description: want.description,
      private: want.private ? 1 : 0,
      synced_at: now,
    },
    trx,
  );

  const upstream = new Map(want.versions.map((v) => [v.version, v]));
  const described: string[] = [];
  const revoked: string[] = [];
  for (const v of await repo.records.versions(box.id, trx)) {
    const u = upstream.get(v.version);
    if (!u || (v.mirror_id === null && v.synced === null)) continue;
    const versionPatch: { description?: string; status?: 'revoked' } = {};
    if (v.description !== u.description && (v.synced === null || v.description === v.synced)) {
      versionPatch.description = u.description;
      described.push(v.version);
    }
    if (want.revocations && u.status === 'revoked' && v.status === 'active') {
      versionPatch.status = 'revoked';
      revoked.push(v.version);
    }
    if (Object.keys(versionPatch).length) await repo.updateVersion(v.id, { ...versionPatch, updated_at: now }, trx);
    await repo.records.saveVersion(v.id, u.description, now, trx);
  }
  return { changed, described, revoked };
}
