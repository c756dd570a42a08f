import type { Principal } from '../auth/accounts-service';
import type { OrgService } from '../orgs/service';
import { ConflictError, ForbiddenError, NotFoundError } from '../lib/errors';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import type { JobRow, MirrorRepository, MirrorRow } from './repository';
import type { UpstreamRepository, UpstreamRow } from './upstreams/repository';
import type { MirrorRunner } from './jobs/runner';
import { inlineUpstream, type CreateMirror, type ResumeMirror, type UpdateMirror } from './schemas';
import { mayReadThrough, type UpstreamService } from './upstreams/service';
import { isRemote } from './upstreams/source';
import type { MirrorRights } from './run-rights';
import { mirrorRow, nextRunAt, targetOf, visibilityOf } from './mirror-row';
import { present } from '../lib/invariant';

type Caller = NonNullable<Principal>;

/**
 * Mirrors (what to copy from which upstream into which local box or organization) and their
 * jobs. A mirror is visible to whoever may manage its target; a target organization that does not
 * exist yet is created, owned by the caller. Its runs use the rights of the user it runs as (its
 * creator, or whoever resumed it last) as they are then: a mirror whose user may no longer publish
 * into its target pauses (mirror/run-rights.ts) until someone who may resumes it.
 */
export class MirrorService {
  constructor(
    private readonly repo: MirrorRepository,
    private readonly upstreamRepo: UpstreamRepository,
    private readonly upstreams: UpstreamService,
    private readonly orgs: OrgService,
    private readonly runner: MirrorRunner,
    private readonly rights: MirrorRights,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  private async mayManage(p: Caller, target: string): Promise<boolean> {
    const ns = await this.orgs.namespace(target.split('/')[0]);
    return ns !== undefined && (await this.orgs.isMember(p, ns));
  }

  async list(p: Caller): Promise<MirrorRow[]> {
    const out: MirrorRow[] = [];
    for (const m of await this.repo.mirrors()) if (await this.mayManage(p, m.target)) out.push(m);
    return out;
  }

  async get(p: Caller, id: string): Promise<MirrorRow> {
    const m = await this.repo.mirror(id);
    if (!m || !(await this.mayManage(p, m.target))) throw new NotFoundError(`No mirror "${id}".`);
    return m;
  }

  async create(p: Caller, input: CreateMirror): Promise<{ mirror: MirrorRow; job: JobRow | null }> {
    const upstream = await this.upstreamOfNew(p, input);
    await this.ensureTarget(p, targetOf(input));
    const row = mirrorRow(input, {
      id: this.ids.id('mir'),
      upstreamId: upstream.id,
      userId: p.user.id,
      now: this.clock.now(),
    });
    await this.repo.insertMirror(row);
    const mirror = present(
      await this.repo.mirror(row.id),
      `Mirror ${row.id} is there when read back just after it was written or found`,
    );
    return { mirror, job: input.run === false ? null : await this.runner.enqueue(mirror) };
  }

  /** A new mirror's upstream: one of the caller's by id, or theirs at the URL given (made if need be). */
  private async upstreamOfNew(p: Caller, input: CreateMirror): Promise<UpstreamRow> {
    if (input.upstream_id) return this.upstreams.own(p, input.upstream_id);
    const { url, token, ca } = inlineUpstream(input);
    return this.upstreams.byUrl(p, url, token, ca);
  }

  async update(p: Caller, id: string, patch: UpdateMirror): Promise<MirrorRow> {
    const m = await this.get(p, id);
    // The mirror may read with its user's upstream token: only they choose where it publishes, and how openly.
    if ((patch.target || patch.private !== undefined) && m.runs_as !== p.user.id && !p.user.is_admin) {
      throw new ForbiddenError(
        'Only the user this mirror runs as (who made it, or resumed it last) or an administrator may change its target or privacy.',
      );
    }
    if (patch.target) {
      if (patch.target.includes('/') !== m.source.includes('/'))
        throw new ConflictError('target must be ORG/BOX for a box and ORG for an organization.');
      await this.ensureTarget(p, patch.target);
    }
    const set = <K extends keyof UpdateMirror>(k: K) => patch[k] !== undefined;
    await this.repo.updateMirror(m.id, {
      ...(patch.target ? { target: patch.target } : {}),
      ...(set('versions') ? { versions: patch.versions ?? null, ...(patch.versions ? { latest: null } : {}) } : {}),
      ...(set('latest') ? { latest: patch.latest ?? null, ...(patch.latest ? { versions: null } : {}) } : {}),
      ...(patch.providers ? { providers: JSON.stringify(patch.providers) } : {}),
      ...(patch.architectures ? { architectures: JSON.stringify(patch.architectures) } : {}),
      ...(patch.private !== undefined ? { visibility: visibilityOf(patch.private) } : {}),
      ...(patch.follow_revocations !== undefined ? { follow_revocations: patch.follow_revocations ? 1 : 0 } : {}),
      ...(patch.parallel !== undefined ? { parallel: patch.parallel } : {}),
      // A paused mirror's schedule waits for its resumption.
      ...(set('interval_minutes')
        ? {
            interval_minutes: patch.interval_minutes ?? null,
            next_run_at: m.paused ? null : nextRunAt(patch.interval_minutes ?? null, this.clock.now()),
          }
        : {}),
      ...(set('retain') ? { retain: patch.retain ?? null } : {}),
      updated_at: this.now(),
    });
    return present(
      await this.repo.mirror(m.id),
      `Mirror ${m.id} is there when read back just after it was written or found`,
    );
  }

  /** Deletes the mirror and its jobs (a running one is cancelled); the local boxes stay. */
  async delete(p: Caller, id: string): Promise<void> {
    const m = await this.get(p, id);
    const active = await this.repo.activeJobOf(m.id);
    if (active) await this.runner.cancel(active.id);
    await this.repo.deleteMirror(m.id);
  }

  async run(p: Caller, id: string): Promise<JobRow> {
    const m = await this.get(p, id);
    if (m.paused)
      throw new ConflictError(
        `Mirror ${m.source} is paused; resume it first (POST /api/boxyard/mirrors/${m.id}/resume). ${m.paused}`,
      );
    const active = await this.repo.activeJobOf(m.id);
    if (active)
      throw new ConflictError(
        `Mirror ${m.source} already has a ${active.state} job (${active.id}); wait for it or cancel it.`,
      );
    return this.runner.enqueue(m);
  }

  /**
   * Resumes a paused mirror; the caller (who may publish into its target: `get` saw to it) becomes
   * the user it runs as. It reads through the upstream given; else its own, if the caller may read
   * through it; else the caller's upstream at the same address when its own holds nothing of its
   * owner's (no token, no CA), made if need be. Another user's token is never used for the caller.
   */
  async resume(p: Caller, id: string, input: ResumeMirror): Promise<MirrorRow> {
    const m = await this.get(p, id);
    if (!m.paused) throw new ConflictError(`Mirror ${m.source} is not paused.`);
    const upstream = await this.upstreamFor(p, m, input);
    const why = await this.rights.refusal(p, m.target, upstream);
    if (why) throw new ForbiddenError(why);
    await this.repo.updateMirror(m.id, {
      runs_as: p.user.id,
      paused: null,
      upstream_id: upstream.id,
      next_run_at: nextRunAt(m.interval_minutes, this.clock.now()),
      updated_at: this.now(),
    });
    return present(
      await this.repo.mirror(m.id),
      `Mirror ${m.id} is there when read back just after it was written or found`,
    );
  }

  private async upstreamFor(p: Caller, m: MirrorRow, input: ResumeMirror): Promise<UpstreamRow> {
    if (input.upstream_id) return this.upstreams.own(p, input.upstream_id);
    if (input.upstream) return this.upstreams.byUrl(p, input.upstream.url, input.upstream.token, input.upstream.ca);
    const own = present(
      await this.upstreamRepo.upstream(m.upstream_id),
      `Upstream ${m.upstream_id} of mirror ${m.id} is there when read back just after it was written or found`,
    );
    if (mayReadThrough(p.user, own)) return own;
    if (own.token === null && own.ca === null && isRemote(own)) return this.upstreams.adopt(p, own);
    throw new ForbiddenError(
      `This mirror reads through the upstream "${own.name}", which is another user's and holds their token or CA: give one of your own to resume it ("upstream_id", or "upstream": {"url","token"}).`,
    );
  }

  async jobs(p: Caller, mirrorId: string): Promise<JobRow[]> {
    return this.repo.jobsOf((await this.get(p, mirrorId)).id);
  }

  async job(p: Caller, id: string): Promise<JobRow> {
    const job = await this.repo.job(id);
    if (!job) throw new NotFoundError(`No mirror job "${id}".`);
    await this.get(p, job.mirror_id).catch(() => {
      throw new NotFoundError(`No mirror job "${id}".`);
    });
    return job;
  }

  async cancel(p: Caller, id: string): Promise<JobRow> {
    const job = await this.job(p, id);
    if (!(await this.runner.cancel(job.id))) {
      const now = present(
        await this.repo.job(job.id),
        `Mirror job ${job.id} is there when read back just after it was written or found`,
      );
      throw new ConflictError(
        now.state === 'running'
          ? `Job ${job.id} is publishing and can no longer be cancelled.`
          : `Job ${job.id} has already finished (${now.state}).`,
      );
    }
    return present(
      await this.repo.job(job.id),
      `Mirror job ${job.id} is there when read back just after it was written or found`,
    );
  }

  /** Deletes an upstream (its mirrors and jobs go with it), cancelling their queued or running jobs first. */
  async deleteUpstream(p: Caller, id: string): Promise<void> {
    const u = await this.upstreams.get(p, id);
    for (const job of await this.repo.activeJobsOfUpstream(u.id)) await this.runner.cancel(job.id);
    await this.upstreams.delete(p, u.id);
  }

  lastJobs = (mirrors: MirrorRow[]) => this.repo.lastJobs(mirrors.map((m) => m.id));
  upstreamOf = (m: MirrorRow) => this.upstreamRepo.upstream(m.upstream_id);
  runsAsName = async (m: MirrorRow): Promise<string | null> =>
    (await this.orgs.actor(m.runs_as))?.user.username ?? null;

  /** A target namespace the caller manages; a missing organization is created, owned by the caller. */
  private async ensureTarget(p: Caller, target: string) {
    const name = target.split('/')[0];
    const ns = await this.orgs.namespace(name);
    if (!ns) {
      await this.orgs.create({ name }, p.user);
      return;
    }
    if (!(await this.orgs.isMember(p, ns)))
      throw new ForbiddenError(
        `You may not publish boxes in "${name}". Ask an owner of "${name}" to make you a member.`,
      );
  }
}
