/**
 * The plan of a mirror not made yet (`POST /api/boxyard/mirror-plans`, `boxyard mirror --dry-run`): a job's plan,
 * summed up.
 */
import type { Principal } from '../../auth/accounts-service';
import type { OrgService } from '../../orgs/service';
import type { BlobStore } from '../../blobs/blob-store';
import type { DiskSpace } from '../../blobs/disk-space';
import type { IdGen } from '../../lib/ids';
import type { Clock } from '../../lib/clock';
import { ForbiddenError } from '../../lib/errors';
import type { PublishService } from '../../registry/versions/publish-service';
import type { MirrorPlanBoxJson, MirrorPlanJson } from '../../contract/wire/mirror';
import { buildJobPlan, localVersionsOf } from './job-plan';
import { bytesToFetch, storageFit } from './disk-fit';
import { copyIsPrivate } from '../jobs/publish';
import type { UpstreamRow } from '../upstreams/repository';
import { mirrorRow, targetOf } from '../mirror-row';
import { inlineUpstream, type CreateMirror } from '../schemas';
import type { UpstreamGate } from '../upstreams/http';
import type { UpstreamService } from '../upstreams/service';
import { sourceFor } from '../upstreams/source';
import { checkToken } from '../upstreams/token-check';

type Caller = NonNullable<Principal>;

export interface DryRunDeps {
  upstreams: UpstreamService;
  orgs: OrgService;
  gate: UpstreamGate;
  blobs: BlobStore;
  space?: DiskSpace;
  publisher: PublishService;
  ids: IdGen;
  clock: Clock;
}

/**
 * "A plan before the copy" (`boxyard mirror --dry-run`, the Move from HCP Vagrant page): what a
 * mirror with these settings would fetch now (boxes, versions, files, bytes), what the upstream
 * would not show, and whether it fits the disk. It reads the upstream as the job would and
 * writes nothing: no upstream, organization or mirror is made. A token the upstream refuses
 * fails it with the upstream's words; one it cannot check (no authenticate API) is said so, and the plan goes on.
 */
export class MirrorDryRun {
  constructor(private readonly deps: DryRunDeps) {}

  async plan(p: Caller, input: CreateMirror): Promise<MirrorPlanJson> {
    const target = targetOf(input);
    await this.checkTarget(p, target);
    const upstream = await this.upstreamFor(p, input);
    const source = sourceFor(upstream, this.deps.gate);
    // A token is tried first, as vagrant checks it: a refusal says so, rather than "no such box"; an upstream that
    // cannot check tokens says so in the plan, which goes on.
    const token_check =
      upstream.token && upstream.kind === 'registry' ? await checkToken(upstream, this.deps.gate) : null;
    // The mirror these settings would make, never stored.
    const mirror = mirrorRow(input, {
      id: 'plan',
      upstreamId: upstream.id,
      userId: p.user.id,
      now: this.deps.clock.now(),
    });
    const { plan, files } = await buildJobPlan(mirror, 'plan', {
      source,
      ids: this.deps.ids,
      localVersions: localVersionsOf(this.deps),
    });
    const sizeOf = new Map(files.map((f) => [f.id, f]));
    const fetch = await bytesToFetch(
      files.map((f) => ({
        checksum: f.checksum ?? null,
        checksum_type: f.checksum_type ?? null,
        size: f.size ?? null,
      })),
      this.deps.blobs,
    );
    const boxes = await Promise.all(
      plan.boxes.map(async (b): Promise<MirrorPlanBoxJson> => {
        const [namespace, name] = b.target.split('/');
        const ns = await this.deps.orgs.namespace(namespace);
        const versions = b.versions.map((v) => {
          const ids = [...new Set(v.providers.map((pr) => pr.file_id))];
          return {
            version: v.version,
            files: ids.length,
            bytes: ids.reduce((n, id) => n + (sizeOf.get(id)?.size ?? 0), 0),
          };
        });
        return {
          source: b.source,
          target: b.target,
          exists: Boolean(ns && (await this.deps.publisher.box(ns, name))),
          private: copyIsPrivate(mirror, b, upstream.token !== null),
          versions,
          files: versions.reduce((n, v) => n + v.files, 0),
          bytes: versions.reduce((n, v) => n + v.bytes, 0),
        };
      }),
    );
    return {
      source: input.source,
      target,
      upstream: { url: upstream.url, kind: upstream.kind, has_token: upstream.token !== null, token_check },
      boxes,
      skipped: plan.skipped ?? [],
      totals: {
        boxes: boxes.length,
        versions: boxes.reduce((n, b) => n + b.versions.length, 0),
        files: files.length,
        bytes: files.reduce((n, f) => n + (f.size ?? 0), 0),
        unknown_sizes: files.filter((f) => f.size === null).length,
      },
      storage: await storageFit(this.deps.space, fetch.bytes),
    };
  }

  /** The target must be the caller's to publish in, or not exist yet (a mirror would make it, theirs). */
  private async checkTarget(p: Caller, target: string) {
    const name = target.split('/')[0];
    const ns = await this.deps.orgs.namespace(name);
    if (ns && !(await this.deps.orgs.isMember(p, ns))) {
      throw new ForbiddenError(
        `You may not publish boxes in "${name}". Ask an owner of "${name}" to make you a member.`,
      );
    }
  }

  /**
   * The caller's own upstream (by id, or by URL with its stored token unless another is given), or one held only for
   * this plan.
   */
  private async upstreamFor(p: Caller, input: CreateMirror): Promise<UpstreamRow> {
    if (input.upstream_id) return this.deps.upstreams.own(p, input.upstream_id);
    return this.deps.upstreams.forPlan(p, inlineUpstream(input));
  }
}
