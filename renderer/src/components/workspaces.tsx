import { useEffect, useId, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { listPools } from '../api/agents';
import { useSession } from '../api/session';
import { createWorkspace, deleteWorkspace, listWorkspaces, setWorkspacePool } from '../api/workspaces';
import type { AgentPoolJson, WorkspaceJson } from '../../../daemon/src/contract/wire/jsonapi';
import { ErrorNote, Loading, Section, confirmed, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { WorkspaceCloudBlock } from './workspace-cloud-block';
import { useServerAccess } from '../api/server-access';
import { TrustStep } from './trust-step';
import { WorkspaceAttributes } from '../../../daemon/src/contract/bodies/jsonapi';
import { isApiError } from '../api/client';
import { checked, formError, hintOf, issueAt } from './form-issues';
import { FieldError } from './field-error';
import { TfcNameField } from './name-field';
import { CardTable } from './card-table';

const RULES = WorkspaceAttributes.shape;
/** A workspace name taken in the organization is the name field's to say. */
const nameTaken = (e: unknown) => isApiError(e, 'conflict');

/** Where a run goes, in words: an agent pool by name, or the server (HCP's remote) or the user's machine (local). */
const runsOn = (mode: string, pool: string | null) =>
  pool ? `agent pool ${pool}` : mode === 'local' ? "the user's machine (local)" : 'the server (remote)';

/**
 * A workspace and where its runs go: the organization's choice, the server (or the user's machine) or a pool,
 * chosen in the select and saved with its button, as the organization's settings above it are.
 */
function WorkspaceRow({
  org,
  workspace: w,
  pools,
  poolRule,
}: {
  org: string;
  workspace: WorkspaceJson;
  pools: AgentPoolJson[];
  /** The id of the words above the table that say which pools a workspace may take. */
  poolRule: string;
}) {
  const { api } = useSession();
  const issueId = useId();
  const keys = [queryKeys.workspaces(org), queryKeys.pools(org)];
  const ow = w.attributes['setting-overwrites'];
  const inherited = !ow['execution-mode'] && !ow['agent-pool'];
  const current = inherited ? 'default' : (w.attributes['agent-pool-id'] ?? '');
  const [choice, setChoice] = useState(current);
  useEffect(() => setChoice(current), [current]);
  const assign = useAction(() => setWorkspacePool(api, w.id, choice === 'default' ? 'default' : choice || null), keys);
  const remove = useAction(() => deleteWorkspace(api, w.id), keys);
  const poolName = (id: string | null) => (id ? (pools.find((p) => p.id === id)?.attributes.name ?? id) : null);
  const now = runsOn(w.attributes['execution-mode'], poolName(w.attributes['agent-pool-id']));
  const save = (e: FormEvent) => {
    e.preventDefault();
    assign.mutate(undefined);
  };
  return (
    <tr>
      <td data-label="Workspace">
        {w.attributes.name}
        <WorkspaceCloudBlock org={org} workspace={w.attributes.name} />
      </td>
      <td data-label="Runs on">
        <form className="inline" onSubmit={save} aria-label={`Where runs of ${w.attributes.name} go`}>
          <select
            aria-label={`Agent pool of ${w.attributes.name}`}
            aria-describedby={assign.error ? `${poolRule} ${issueId}` : poolRule}
            aria-invalid={assign.error ? true : undefined}
            value={choice}
            onChange={(e) => setChoice(e.target.value)}
          >
            <option value="default">as the organization decides{inherited ? ` (now ${now})` : ''}</option>
            <option value="">
              {runsOn(w.attributes['execution-mode'] === 'local' && !inherited ? 'local' : 'remote', null)}
            </option>
            {pools.map((p) => (
              <option key={p.id} value={p.id}>
                agent pool {p.attributes.name}
              </option>
            ))}
          </select>
          {choice !== current && (
            <button type="submit" className="small" disabled={assign.isPending}>
              Save
            </button>
          )}
        </form>
        <FieldError error={assign.error} id={issueId} />
        <span className="muted">
          {inherited
            ? 'inherited from the organization'
            : ow['execution-mode'] && ow['agent-pool']
              ? 'its own'
              : `its own ${ow['execution-mode'] ? 'mode' : 'pool'}, the organization's ${ow['execution-mode'] ? 'pool' : 'mode'}`}
        </span>
        <ErrorNote error={remove.error} />
      </td>
      <td>
        <button
          type="button"
          className="danger small"
          onClick={() => confirmed(`Delete workspace ${w.attributes.name}`) && remove.mutate(undefined)}
        >
          Delete
        </button>
      </td>
    </tr>
  );
}

/** An organization's workspaces, and which agent pool (if any) runs each one. */
export function Workspaces({ org }: { org: string }) {
  const { api } = useSession();
  const key = queryKeys.workspaces(org);
  const workspaces = useQuery({ queryKey: key, queryFn: () => listWorkspaces(api, org) });
  const pools = useQuery({ queryKey: queryKeys.pools(org), queryFn: () => listPools(api, org) });
  const access = useServerAccess();
  const [name, setName] = useState('');
  const poolRule = useId();
  const create = useAction(
    () => createWorkspace(api, org, checked(WorkspaceAttributes, { name })),
    [key],
    () => setName(''),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  const form = (
    <form className="inline" onSubmit={submit} aria-label="New workspace" noValidate>
      <TfcNameField
        label="Workspace name"
        rule={RULES.name}
        name="workspace_name"
        value={name}
        onChange={setName}
        issue={issueAt(create.error, 'name', nameTaken)}
      />
      <button type="submit" disabled={create.isPending}>
        Create workspace
      </button>
    </form>
  );
  return (
    <Section title="Workspaces" actions={form}>
      <p className="muted">
        A workspace is one Terraform configuration's place on this server, as in HCP Terraform: Terraform names it in
        its <code>cloud {'{}'}</code> block, and it is assigned the agent pool chosen here.
      </p>
      <ErrorNote error={formError(create.error, nameTaken) ?? pools.error} />
      {workspaces.isLoading ? <Loading what="workspaces" /> : <ErrorNote error={workspaces.error} />}
      {workspaces.data?.length === 0 && <p className="muted">No workspaces yet.</p>}
      {workspaces.data && workspaces.data.length > 0 && (
        <TrustStep server={access.server} fingerprint={access.fingerprint} what="Terraform uses a workspace" />
      )}
      {workspaces.data && workspaces.data.length > 0 && (
        <p className="muted" id={poolRule}>
          Runs on: {hintOf(RULES['agent-pool-id'])}
        </p>
      )}
      {workspaces.data && workspaces.data.length > 0 && (
        <CardTable label="Workspaces" columns={['Workspace', 'Runs on', 'Change']}>
          {workspaces.data.map((w) => (
            <WorkspaceRow key={w.id} org={org} workspace={w} pools={pools.data ?? []} poolRule={poolRule} />
          ))}
        </CardTable>
      )}
    </Section>
  );
}
