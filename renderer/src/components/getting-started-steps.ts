import type { OverviewJson } from '../../../daemon/src/contract/wire/overview';
import { AGENT_STATUSES } from '../../../daemon/src/contract/wire/jsonapi';

export interface Step {
  key: string;
  /** What to do, as the link's text. */
  todo: string;
  /** Where it is done. */
  to: string;
  /** Why, in one plain sentence. */
  why: string;
  done: boolean;
}

/**
 * The steps from an empty server to a box vagrant can add and an agent waiting for runs, each ticked from the
 * daemon's counts. Making users is an administrator's step only (`users` is null for anyone else).
 */
export function gettingStartedSteps(o: OverviewJson): Step[] {
  const g = o.getting_started;
  const agents = AGENT_STATUSES.reduce((n, s) => n + o.organizations.agents[s], 0);
  const mine = '/boxes?view=mine';
  const steps: (Step | null)[] = [
    {
      key: 'organization',
      todo: 'Create an organization',
      to: '/organizations',
      why: 'An organization holds the boxes and agent pools its members share.',
      done: o.organizations.count > 0,
    },
    {
      key: 'box',
      todo: 'Create a box',
      to: '/boxes/new',
      why: 'A box is a name, such as lab/debian, that vagrant asks for.',
      done: g.boxes > 0,
    },
    {
      key: 'upload',
      todo: 'Upload a .box file',
      to: '/boxes/add',
      why: 'Drop the file: its provider and architecture are read from it, its box and version made if missing.',
      done: g.uploads > 0,
    },
    {
      key: 'release',
      todo: 'Release a version',
      to: mine,
      why: 'vagrant finds only released versions.',
      done: g.releases > 0,
    },
    g.users === null
      ? null
      : {
          key: 'user',
          todo: 'Add a user',
          to: '/settings/administration',
          why: 'An account for each colleague, made under Users in Settings → Administration.',
          done: g.users > 1,
        },
    {
      key: 'pool',
      todo: 'Create an agent pool',
      to: '/agent-pools',
      why: "A pool is the group of machines that run an organization's Terraform workspaces.",
      done: o.organizations.pools > 0,
    },
    {
      key: 'agent',
      todo: 'Start an agent',
      to: '/agent-pools',
      why: "On the pool's page, make an agent token and run boxyard agent with it on a machine.",
      done: agents > 0,
    },
  ];
  return steps.filter((s): s is Step => s !== null);
}
