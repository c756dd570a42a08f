import type { OrgService } from '../../orgs/service';
import { NotFoundError } from '../../lib/errors';
import type { PublishService } from '../../registry/versions/publish-service';
import type { JobBox, JobPlan } from '../plans/job-plan';
import type { MirrorRow } from '../repository';

/**
 * Whether a mirror's copy of a box is private: as the mirror says, else as the upstream's box API
 * says, else (a catalog-only upstream) private when the upstream is read with a token.
 */
export function copyIsPrivate(
  mirror: Pick<MirrorRow, 'visibility'>,
  box: Pick<JobBox, 'upstream'>,
  privateByDefault: boolean,
): boolean {
  return mirror.visibility === 'upstream'
    ? (box.upstream?.private ?? privateByDefault)
    : mirror.visibility === 'private';
}

/**
 * Publishes a job's fetched files: each box in one transaction (so it is seen as it was, or with
 * every new version), released at once, then the mirror's retention. Versions that appeared
 * locally meanwhile are left alone.
 */
export async function publishPlan(
  plan: JobPlan,
  mirror: MirrorRow,
  blobs: Map<string, { sha256: string; size: number }>,
  deps: { publisher: PublishService; orgs: OrgService },
  /** Private when neither the mirror nor the upstream says: an upstream read with a token is private. */
  privateByDefault: boolean,
): Promise<JobPlan> {
  const published: NonNullable<JobPlan['published']> = [];
  const blobOf = (fileId: string) => {
    const blob = blobs.get(fileId);
    if (!blob) throw new Error(`File ${fileId} of the plan is about to be published, yet it was not downloaded.`);
    return blob;
  };
  for (const box of plan.boxes) {
    const [namespace, name] = box.target.split('/');
    const ns = await deps.orgs.namespace(namespace);
    if (!ns)
      throw new NotFoundError(
        `The mirror's target "${namespace}" no longer exists; create it and run the mirror again.`,
      );
    const isPrivate = copyIsPrivate(mirror, box, privateByDefault);
    const follow = box.upstream && {
      ...box.upstream,
      private: isPrivate,
      revocations: mirror.follow_revocations === 1,
      mirrorId: mirror.id,
    };
    const result =
      box.versions.length === 0 && !(await deps.publisher.box(ns, name))
        ? null
        : await deps.publisher.publish({
            namespace: ns,
            name,
            short_description: box.short_description,
            description: box.description,
            private: isPrivate,
            existing: 'skip',
            release: true,
            mirrorId: mirror.id,
            ...(follow ? { follow } : {}),
            versions: box.versions.map((v) => ({
              version: v.version,
              description: v.description,
              providers: v.providers.map((p) => ({
                name: p.name,
                architecture: p.architecture,
                default_architecture: p.default_architecture,
                blob: blobOf(p.file_id),
                checksum: p.checksum,
                checksum_type: p.checksum_type,
              })),
            })),
          });
    const pruned = result && mirror.retain ? await deps.publisher.prune(result.box.id, mirror.id, mirror.retain) : [];
    const f = result?.followed;
    published.push({
      box: box.target,
      versions: result?.versions ?? [],
      ...(pruned.length ? { pruned } : {}),
      ...(f?.changed.length ? { updated: f.changed } : {}),
      ...(f?.described.length ? { described: f.described } : {}),
      ...(f?.revoked.length ? { revoked: f.revoked } : {}),
    });
  }
  return { ...plan, published };
}
