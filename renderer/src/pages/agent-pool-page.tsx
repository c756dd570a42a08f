import { useNavigate, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { deleteAgent, deletePool, getPool, listAgents } from '../api/agents';
import { DELETABLE_AGENT_STATUSES } from '../../../daemon/src/contract/wire-jsonapi';
import { useSession } from '../api/session';
import { ErrorNote, Loading, Section, StatusBadge, confirmed, formatTime, useAction } from '../components/ui';
import { AgentTokens } from '../components/tokens/agent-tokens';
import { PoolScope } from '../components/pool-scope';
import { queryKeys } from '../api/query-keys';

/** Agents report every few seconds; poll so their status is live without a reload. */
const AGENT_POLL_MS = 3_000;

function Agents({ poolId }: { poolId: string }) {
  const { api } = useSession();
  const agents = useQuery({ queryKey: queryKeys.agents(poolId), queryFn: () => listAgents(api, poolId), refetchInterval: AGENT_POLL_MS });
  const remove = useAction((id: string) => deleteAgent(api, id), [queryKeys.agents(poolId)]);
  return (
    <Section title="Agents">
      {agents.isLoading ? <Loading what="agents" /> : <ErrorNote error={agents.error} />}
      <ErrorNote error={remove.error} />
      {agents.data?.length === 0 && <p className="muted">No agents yet. Start one on any machine: <code>boxyard agent --url {window.location.origin} --token &lt;agent token&gt;</code></p>}
      {agents.data && agents.data.length > 0 && (
        <table>
          <thead><tr><th>Agent</th><th>Status</th><th>Address</th><th>Last report</th><th /></tr></thead>
          <tbody>
            {agents.data.map((a) => (
              <tr key={a.id}>
                <td>{a.attributes.name ?? a.id}</td>
                <td><StatusBadge status={a.attributes.status} /></td>
                <td>{a.attributes['ip-address']}</td>
                <td>{formatTime(a.attributes['last-ping-at'])}</td>
                <td>{DELETABLE_AGENT_STATUSES.includes(a.attributes.status) && <button type="button" className="danger small" onClick={() => remove.mutate(a.id)}>Delete</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

export function AgentPoolPage() {
  const { org = '', poolId = '' } = useParams();
  const { api } = useSession();
  const navigate = useNavigate();
  const pool = useQuery({ queryKey: queryKeys.pool(poolId), queryFn: () => getPool(api, poolId) });
  const remove = useAction(() => deletePool(api, poolId), [queryKeys.pools(org)], () => navigate(`/agent-pools/${org}`));
  if (pool.isLoading) return <Loading what="agent pool" />;
  if (!pool.data) return <ErrorNote error={pool.error} />;
  const p = pool.data.attributes;
  return (
    <>
      <div className="page-head">
        <h1>{org} / {p.name}</h1>
        <button type="button" className="danger" onClick={() => confirmed(`Delete agent pool ${p.name}`) && remove.mutate(undefined)}>Delete pool</button>
      </div>
      <ErrorNote error={remove.error} />
      <p className="muted">{p['organization-scoped'] ? 'Every workspace of the organization' : 'Only selected workspaces'} may use this pool. Created {formatTime(p['created-at'])}. Id <code>{poolId}</code>.</p>
      <PoolScope org={org} pool={pool.data} />
      <AgentTokens poolId={poolId} />
      <Agents poolId={poolId} />
    </>
  );
}
