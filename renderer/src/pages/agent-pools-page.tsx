import { useRef, useState, type FormEvent, type RefObject } from 'react';
import { Link, Navigate, NavLink, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { createPool, listPools, poolStatusCounts } from '../api/agents';
import { isApiError } from '../api/client';
import { useSession } from '../api/session';
import { useNamespaces } from '../api/use-namespaces';
import { POOL_SENTENCE } from './agent-pool-page';
import { ErrorNote, Loading, Section, useAction } from '../components/ui';
import { PoolLimitNote } from '../components/pool-limit-note';
import { queryKeys } from '../api/query-keys';
import { AGENT_STATUSES } from '../../../daemon/src/contract/wire/jsonapi';
import { noAgents, type AgentStatusCounts } from '../../../daemon/src/contract/wire/agent-counts';
import { When } from '../components/relative-time';
import { CardTable } from '../components/card-table';
import { PoolAttributes } from '../../../daemon/src/contract/bodies/jsonapi';
import { checked, formError, issueAt } from '../components/form-issues';
import { TfcNameField } from '../components/name-field';

/** A pool name taken in the organization is the name field's to say. */
const nameTaken = (e: unknown) => isApiError(e, 'conflict');

function NewPoolForm({ org, nameField }: { org: string; nameField: RefObject<HTMLInputElement | null> }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [scoped, setScoped] = useState(true);
  const create = useAction(
    () => createPool(api, org, checked(PoolAttributes, { name, 'organization-scoped': scoped })),
    [queryKeys.pools(org)],
    () => setName(''),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="New agent pool" noValidate>
      <TfcNameField
        label="Pool name"
        rule={PoolAttributes.shape.name}
        name="pool_name"
        value={name}
        onChange={setName}
        issue={issueAt(create.error, 'name', nameTaken)}
        inputRef={nameField}
      />
      <label className="check">
        <input type="checkbox" checked={scoped} onChange={(e) => setScoped(e.target.checked)} /> All workspaces may use
        it
      </label>
      <button type="submit" disabled={create.isPending}>
        Create pool
      </button>
      {isApiError(create.error, 'limit_reached') ? (
        <PoolLimitNote org={org} retry={() => create.mutate(undefined)} />
      ) : (
        <ErrorNote error={formError(create.error, nameTaken)} />
      )}
    </form>
  );
}

/** A pool's agents per status, the statuses it has none of left out. */
function StatusCounts({ pool, counts }: { pool: string; counts: AgentStatusCounts }) {
  const present = AGENT_STATUSES.filter((s) => counts[s] > 0);
  if (present.length === 0) return <span className="muted">no agents</span>;
  return (
    <ul className="status-counts" aria-label={`Agents of ${pool}`}>
      {present.map((s) => (
        <li key={s} className={`badge badge-${s}`}>
          {counts[s]} {s}
        </li>
      ))}
    </ul>
  );
}

/** The list refreshes now and then; the counts of the listed pools come in one more request, never one per pool. */
const LIST_POLL_MS = 10_000;

function PoolList({ org }: { org: string }) {
  const { api } = useSession();
  const pools = useQuery({
    queryKey: queryKeys.pools(org),
    queryFn: () => listPools(api, org),
    refetchInterval: LIST_POLL_MS,
  });
  const ids = (pools.data ?? []).map((p) => p.id);
  const counts = useQuery({
    queryKey: queryKeys.poolStatusCounts(org, ids.join(',')),
    queryFn: () => poolStatusCounts(api, org, ids),
    enabled: ids.length > 0,
    refetchInterval: LIST_POLL_MS,
    placeholderData: (previous) => previous,
  });
  const nameField = useRef<HTMLInputElement>(null);
  return (
    <Section title={`Agent pools of ${org}`} actions={<NewPoolForm org={org} nameField={nameField} />}>
      {pools.isLoading ? <Loading what="agent pools" /> : <ErrorNote error={pools.error ?? counts.error} />}
      {pools.data?.length === 0 && (
        <div className="next-step">
          <p>
            No agent pools yet. A pool is the group of machines that run this organization's Terraform workspaces: name
            one, then make an agent token on its page and start <code>boxyard agent</code> with it on each machine.
          </p>
          <button type="button" className="primary" onClick={() => nameField.current?.focus()}>
            Create a pool
          </button>
        </div>
      )}
      {pools.data && pools.data.length > 0 && (
        <CardTable label="Agent pools" columns={['Pool', 'Scope', 'Agents', 'Created']}>
          {pools.data.map((p) => (
            <tr key={p.id}>
              <td data-label="Pool">
                <Link to={`/agent-pools/${org}/${p.id}`}>{p.attributes.name}</Link>
              </td>
              <td data-label="Scope">
                {p.attributes['organization-scoped'] === false ? 'selected workspaces' : 'whole organization'}
              </td>
              <td data-label="Agents">
                {counts.data ? (
                  <StatusCounts pool={p.attributes.name} counts={counts.data[p.id] ?? noAgents()} />
                ) : (
                  p.attributes['agent-count']
                )}
              </td>
              <td data-label="Created">
                <When iso={p.attributes['created-at']} />
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}

/** Agent pools belong to organizations: pick one, then list and create its pools. */
export function AgentPoolsPage() {
  const { org } = useParams();
  const ns = useNamespaces();
  if (!org && ns.orgs.length > 0) return <Navigate to={`/agent-pools/${ns.orgs[0]}`} replace />;
  return (
    <>
      <div className="page-head">
        <h1>Agent pools</h1>
      </div>
      <p className="muted">{POOL_SENTENCE}</p>
      <nav className="tabs">
        {ns.orgs.map((o) => (
          <NavLink key={o} to={`/agent-pools/${o}`}>
            {o}
          </NavLink>
        ))}
      </nav>
      <ErrorNote error={ns.error} />
      {!org && !ns.isLoading && (
        <div className="next-step">
          <p>
            No agent pools yet. A pool is the group of machines that run an organization's Terraform workspaces, and it
            belongs to that organization: create the organization first.
          </p>
          <Link className="button primary" to="/organizations">
            Create an organization
          </Link>
        </div>
      )}
      {org && <PoolList org={org} />}
    </>
  );
}
