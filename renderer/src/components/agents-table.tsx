import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { deleteAgent, listAgents } from '../api/agents';
import { DELETABLE_AGENT_STATUSES } from '../../../daemon/src/contract/wire/jsonapi';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';
import { ErrorNote, Loading, Section, StatusBadge, useAction } from './ui';
import { TimeAgo, useNow } from './relative-time';
import { CardTable } from './card-table';

/** Agents report every few seconds; poll so their status is live without a reload. */
const AGENT_POLL_MS = 3_000;

/**
 * A pool's agents with their live status and when each was last seen (counting on between polls).
 * Exited agents stay listed until deleted; "Hide exited agents" (off by default, so nothing is
 * out of sight unasked) leaves them out. Delete is offered where the API allows it (unknown,
 * errored, exited); a refusal (the agent came back meanwhile) shows the API's words on its row.
 */
export function AgentsTable({ org, poolId }: { org: string; poolId: string }) {
  const { api } = useSession();
  const agents = useQuery({
    queryKey: queryKeys.agents(poolId),
    queryFn: () => listAgents(api, poolId),
    refetchInterval: AGENT_POLL_MS,
  });
  const remove = useAction((id: string) => deleteAgent(api, id), [queryKeys.agents(poolId), queryKeys.pools(org)]);
  const [hideExited, setHideExited] = useState(false);
  const now = useNow();
  const all = agents.data ?? [];
  const shown = hideExited ? all.filter((a) => a.attributes.status !== 'exited') : all;
  const hidden = all.length - shown.length;
  const filter = (
    <label className="check">
      <input type="checkbox" checked={hideExited} onChange={(e) => setHideExited(e.target.checked)} /> Hide exited
      agents
    </label>
  );
  return (
    <Section title="Agents" actions={filter}>
      {agents.isLoading ? <Loading what="agents" /> : <ErrorNote error={agents.error} />}
      {agents.data?.length === 0 && (
        <p className="muted">No agents yet: start one with the lines under Run an agent.</p>
      )}
      {hidden > 0 && (
        <p className="muted">{hidden === 1 ? '1 exited agent is' : `${hidden} exited agents are`} hidden.</p>
      )}
      {shown.length > 0 && (
        <CardTable label="Agents" columns={['Agent', 'Status', 'Address', 'Last seen', 'Change']}>
          {shown.map((a) => (
            <tr key={a.id}>
              <td data-label="Agent">{a.attributes.name ?? a.id}</td>
              <td data-label="Status">
                <StatusBadge status={a.attributes.status} />
              </td>
              <td data-label="Address">{a.attributes['ip-address']}</td>
              <td data-label="Last seen">
                <TimeAgo iso={a.attributes['last-ping-at']} now={now} />
              </td>
              <td>
                {DELETABLE_AGENT_STATUSES.includes(a.attributes.status) && (
                  <button
                    type="button"
                    className="danger small"
                    aria-label={`Delete agent ${a.attributes.name ?? a.id}`}
                    onClick={() => remove.mutate(a.id)}
                    disabled={remove.isPending}
                  >
                    Delete
                  </button>
                )}
                {remove.variables === a.id && <ErrorNote error={remove.error} />}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}
