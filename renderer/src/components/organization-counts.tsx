import type { OverviewJson } from '../../../daemon/src/contract/wire/overview';
import { AGENT_STATUSES } from '../../../daemon/src/contract/wire/jsonapi';
import { Section } from './ui';
import { Stat } from './stat';

/** The overview's organizations, agent pools and agents (by status, the statuses with none left out). */
export function OrganizationCounts({ o }: { o: OverviewJson }) {
  const { count, pools, agents } = o.organizations;
  const present = AGENT_STATUSES.filter((s) => agents[s] > 0);
  const total = present.reduce((n, s) => n + agents[s], 0);
  return (
    <Section title="Organizations and agents">
      <div className="stats">
        <Stat label="organizations" value={String(count)} />
        <Stat label="agent pools" value={String(pools)} />
        <Stat
          label="agents"
          value={String(total)}
          note={present.length > 0 ? present.map((s) => `${agents[s]} ${s}`).join(', ') : undefined}
        />
      </div>
    </Section>
  );
}
