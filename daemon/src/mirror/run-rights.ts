import type { Acting } from '../auth/accounts-service';
import type { OrgService } from '../orgs/service';
import type { MirrorRow } from './repository';
import type { UpstreamRow } from './upstreams/repository';
import { mayReadThrough } from './upstreams/service';

type Mirror = Pick<MirrorRow, 'id' | 'target' | 'runs_as'>;

/** Where the target's owners resume a paused mirror. */
const resumeHint = (m: Pick<MirrorRow, 'id'>) =>
  `Someone who may publish into the target can resume it (Resume with my rights on the Mirrors page, or POST /api/boxyard/mirrors/${m.id}/resume); it then runs with their rights.`;

/**
 * Whose rights a mirror's runs use: the user it runs as (`runs_as`: its creator, or
 * whoever resumed it last), as they are when it runs, not as they were when it was made. They
 * must still publish into its target namespace (the rule of every box change: orgs/service.ts
 * isMember, administrators included) and still read through its upstream (upstreams/service.ts
 * mayReadThrough). When they may not, the job (mirror/jobs/job-run.ts) pauses the mirror with the
 * reason, which the target's owners see, and publishes nothing.
 */
export class MirrorRights {
  constructor(private readonly orgs: Pick<OrgService, 'actor' | 'namespace' | 'isMember'>) {}

  /** Why `who` may not run a mirror into `target` through `upstream` now, or null when they may. */
  async refusal(who: NonNullable<Acting>, target: string, upstream: UpstreamRow): Promise<string | null> {
    const name = target.split('/')[0];
    const ns = await this.orgs.namespace(name);
    // A target that is gone is no question of rights: publishing fails and says so (jobs/publish.ts).
    if (ns && !(await this.orgs.isMember(who, ns))) {
      return `${who.user.username} may no longer publish boxes in "${ns.name}" (not a member of it now).`;
    }
    if (!mayReadThrough(who.user, upstream)) {
      return `${who.user.username} may not read through the upstream "${upstream.name}" (it is another user's, or needs administrator rights they do not have now).`;
    }
    return null;
  }

  /**
   * The message of a mirror that must pause now (its runs publish nothing until it is resumed), or null when it may
   * run.
   */
  async pauseReason(mirror: Mirror, upstream: UpstreamRow): Promise<string | null> {
    const who = await this.orgs.actor(mirror.runs_as);
    const why = who ? await this.refusal(who, mirror.target, upstream) : 'The user it ran as was deleted.';
    return why && `Paused: ${why} It publishes nothing until it is resumed. ${resumeHint(mirror)}`;
  }
}
