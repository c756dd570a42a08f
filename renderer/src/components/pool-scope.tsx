import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { setPoolScope } from '../api/agents';
import { useSession } from '../api/session';
import { listWorkspaces } from '../api/workspaces';
import { idsOf } from '../api/load';
import type { AgentPoolJson } from '../../../daemon/src/contract/wire/jsonapi';
import { ErrorNote, Section, useAction } from './ui';
import { queryKeys } from '../api/query-keys';

/** Names for workspace ids (an id stays as it is while the list is loading or beyond its first page). */
const namesOf = (ids: string[], byId: Map<string, string>): string => ids.map((id) => byId.get(id) ?? id).join(', ');

/** Which workspaces run on the pool and which may use it, by name. */
function WorkspaceNames({ org, pool, byId }: { org: string; pool: AgentPoolJson; byId: Map<string, string> }) {
  const running = idsOf(pool.relationships.workspaces);
  const allowed = idsOf(pool.relationships['allowed-workspaces']);
  const excluded = idsOf(pool.relationships['excluded-workspaces']);
  const mayUse = pool.attributes['organization-scoped']
    ? `every workspace of ${org}`
    : allowed.length
      ? namesOf(allowed, byId)
      : 'no workspace yet';
  return (
    <dl className="facts" aria-label="Workspaces of this pool">
      <dt>Runs</dt>
      <dd>{running.length ? namesOf(running, byId) : 'no workspace yet'}</dd>
      <dt>May use it</dt>
      <dd>{mayUse}</dd>
      {excluded.length > 0 && (
        <>
          <dt>Excluded</dt>
          <dd>{namesOf(excluded, byId)}</dd>
        </>
      )}
    </dl>
  );
}

/** Which workspaces may use a pool: all of the organization's, or a chosen few. */
export function PoolScope({ org, pool }: { org: string; pool: AgentPoolJson }) {
  const { api } = useSession();
  const workspaces = useQuery({ queryKey: queryKeys.workspaces(org), queryFn: () => listWorkspaces(api, org) });
  const [scoped, setScoped] = useState(pool.attributes['organization-scoped']);
  const [allowed, setAllowed] = useState<string[]>(idsOf(pool.relationships['allowed-workspaces']));
  useEffect(() => {
    setScoped(pool.attributes['organization-scoped']);
    setAllowed(idsOf(pool.relationships['allowed-workspaces']));
  }, [pool]);
  const save = useAction(
    () => setPoolScope(api, pool.id, scoped, allowed),
    [queryKeys.pool(pool.id), queryKeys.pools(org)],
  );
  const toggle = (id: string, on: boolean) => setAllowed(on ? [...allowed, id] : allowed.filter((w) => w !== id));
  const inUse = new Set(idsOf(pool.relationships.workspaces));
  const byId = new Map((workspaces.data ?? []).map((w) => [w.id, w.attributes.name]));
  return (
    <Section title="Who may use this pool">
      <WorkspaceNames org={org} pool={pool} byId={byId} />
      <ErrorNote error={save.error ?? workspaces.error} />
      <label className="check">
        <input type="checkbox" checked={scoped} onChange={(e) => setScoped(e.target.checked)} /> Every workspace of{' '}
        {org}
      </label>
      {!scoped && (
        <ul className="plain" aria-label="Allowed workspaces">
          {(workspaces.data ?? []).map((w) => (
            <li key={w.id}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={allowed.includes(w.id)}
                  onChange={(e) => toggle(w.id, e.target.checked)}
                />{' '}
                {w.attributes.name}
                {inUse.has(w.id) && <span className="badge">runs here</span>}
              </label>
            </li>
          ))}
          {workspaces.data?.length === 0 && (
            <li className="muted">{org} has no workspaces yet (create them on the organization page).</li>
          )}
        </ul>
      )}
      <button type="button" onClick={() => save.mutate(undefined)} disabled={save.isPending}>
        Save
      </button>
    </Section>
  );
}
