import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { deletePool, getPool, renamePool } from '../api/agents';
import { useSession } from '../api/session';
import { ErrorNote, Loading, confirmed, useAction } from '../components/ui';
import { AgentTokens } from '../components/tokens/agent-tokens';
import { AgentsTable } from '../components/agents-table';
import { AgentProgram } from '../components/agent-program';
import { PoolScope } from '../components/pool-scope';
import { queryKeys } from '../api/query-keys';
import { When } from '../components/relative-time';
import { useFocusWhenShown } from '../components/focus';
import { TfcNameField } from '../components/name-field';
import { checked, formError, issueAt } from '../components/form-issues';
import { PoolAttributes } from '../../../daemon/src/contract/bodies/jsonapi';

/** What an agent pool is, in one sentence: this page and the pools page say it. */
export const POOL_SENTENCE =
  'An agent pool is a group of machines, each running boxyard agent, to which workspaces are assigned.';

/** The field Rename opens: it takes the focus, as the user asked for it. */
function NewNameField({
  value,
  onChange,
  issue,
}: {
  value: string;
  onChange: (name: string) => void;
  issue: string | undefined;
}) {
  const ref = useFocusWhenShown<HTMLInputElement>();
  return (
    <TfcNameField
      label="New name"
      rule={PoolAttributes.shape.name}
      name="pool_new_name"
      value={value}
      onChange={onChange}
      issue={issue}
      inputRef={ref}
    />
  );
}

/** The pool's name as the page heading, with Rename (PATCH of the pool's `name`) and Delete. */
function PoolHead({ org, poolId, name }: { org: string; poolId: string; name: string }) {
  const { api } = useSession();
  const navigate = useNavigate();
  const [editing, setEditing] = useState<string | null>(null);
  const rename = useAction(
    (n: string) => renamePool(api, poolId, checked(PoolAttributes, { name: n }).name),
    [queryKeys.pool(poolId), queryKeys.pools(org)],
    () => setEditing(null),
  );
  const remove = useAction(
    () => deletePool(api, poolId),
    [queryKeys.pools(org)],
    () => navigate(`/agent-pools/${org}`),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (editing !== null) rename.mutate(editing);
  };
  return (
    <>
      <div className="page-head">
        <h1>
          {org} / {name}
        </h1>
        <div className="row">
          <button
            type="button"
            onClick={() => {
              rename.reset();
              setEditing(editing === null ? name : null);
            }}
            aria-expanded={editing !== null}
          >
            Rename
          </button>
          <button
            type="button"
            className="danger"
            onClick={() => confirmed(`Delete agent pool ${name}`) && remove.mutate(undefined)}
          >
            Delete pool
          </button>
        </div>
      </div>
      {editing !== null && (
        <form className="inline" onSubmit={submit} aria-label="Rename pool" noValidate>
          <NewNameField value={editing} onChange={setEditing} issue={issueAt(rename.error, 'name')} />
          <button type="submit" disabled={rename.isPending}>
            Save name
          </button>
          <button type="button" className="link" onClick={() => setEditing(null)}>
            Cancel
          </button>
          <ErrorNote error={formError(rename.error)} />
        </form>
      )}
      <ErrorNote error={remove.error} />
    </>
  );
}

export function AgentPoolPage() {
  const { org = '', poolId = '' } = useParams();
  const { api } = useSession();
  const pool = useQuery({ queryKey: queryKeys.pool(poolId), queryFn: () => getPool(api, poolId) });
  if (pool.isLoading) return <Loading what="agent pool" />;
  if (!pool.data) return <ErrorNote error={pool.error} />;
  const p = pool.data.attributes;
  return (
    <>
      <PoolHead org={org} poolId={poolId} name={p.name} />
      <p className="muted">
        {POOL_SENTENCE} Created <When iso={p['created-at']} />. Id <code>{poolId}</code>.
      </p>
      <PoolScope org={org} pool={pool.data} />
      <AgentProgram />
      <AgentTokens poolId={poolId} />
      <AgentsTable org={org} poolId={poolId} />
    </>
  );
}
