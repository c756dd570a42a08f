import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { findUsernames, getOrganization, removeMember, setMember } from '../api/accounts';
import { useSession } from '../api/session';
import { ErrorNote, Loading, Section, confirmed, useAction } from '../components/ui';
import { Workspaces } from '../components/workspaces';
import { OrganizationAgentSettings } from '../components/organization-agent-settings';
import { queryKeys } from '../api/query-keys';
import { ORGANIZATION_ROLES, type MemberJson, type OrganizationRole } from '../../../daemon/src/contract/wire/accounts';
import { When } from '../components/relative-time';
import { CardTable } from '../components/card-table';
import { ServicePrincipals } from '../components/service-principals';

/** Members, and for an owner (or an administrator) the controls that change them; others see the list and why. */
function Members({ org, members, mayManage }: { org: string; members: MemberJson[]; mayManage: boolean }) {
  const { api } = useSession();
  const key = queryKeys.organization(org);
  const [username, setUsername] = useState('');
  const [role, setRole] = useState<OrganizationRole>('member');
  const put = useAction(
    (m: { username: string; role: OrganizationRole }) => setMember(api, org, m.username, m.role),
    [key],
    () => setUsername(''),
  );
  const remove = useAction((u: string) => removeMember(api, org, u), [key]);
  // Usernames as they are typed, for the field's suggestions (not members already).
  const typed = username.trim();
  const candidates = useQuery({
    queryKey: ['user-names', typed],
    queryFn: () => findUsernames(api, typed),
    enabled: mayManage && typed.length > 0,
    select: (names) => names.filter((n) => !members.some((m) => m.username === n)),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    put.mutate({ username, role });
  };
  return (
    <Section title="Members">
      <ErrorNote error={put.error ?? remove.error} />
      <CardTable label="Members" columns={['User', 'Role', mayManage && 'Change']}>
        {members.map((m) => (
          <tr key={m.username}>
            <td data-label="User">{m.username}</td>
            <td data-label="Role">{m.role}</td>
            {mayManage && (
              <td>
                <div className="row">
                  <button
                    type="button"
                    className="small"
                    onClick={() => put.mutate({ username: m.username, role: m.role === 'owner' ? 'member' : 'owner' })}
                  >
                    {m.role === 'owner' ? 'Make member' : 'Make owner'}
                  </button>
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => confirmed(`Remove ${m.username} from ${org}`) && remove.mutate(m.username)}
                  >
                    Remove
                  </button>
                </div>
              </td>
            )}
          </tr>
        ))}
      </CardTable>
      {!mayManage && <p className="muted">Only owners of {org} add, promote or remove members.</p>}
      {mayManage && (
        <form className="inline" onSubmit={submit} aria-label="Add member">
          <label>
            Username
            <input
              name="member"
              list="member-candidates"
              autoComplete="off"
              aria-describedby="member-hint"
              value={username}
              onChange={(e) => setUsername(e.target.value)}
              required
            />
          </label>
          <datalist id="member-candidates">
            {(candidates.data ?? []).map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as OrganizationRole)}>
            {ORGANIZATION_ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
          <button type="submit" disabled={put.isPending}>
            Add member
          </button>
          <p className="hint" id="member-hint">
            Users found as you type. A colleague without an account gets one from an administrator, in Settings →
            Administration.
          </p>
        </form>
      )}
    </Section>
  );
}

/**
 * An organization: owners add, promote and remove members, make and revoke service principals, set its agent-pool
 * limit and defaults; its workspaces and their agent pools.
 */
export function OrganizationPage() {
  const { name = '' } = useParams();
  const { api } = useSession();
  const org = useQuery({ queryKey: queryKeys.organization(name), queryFn: () => getOrganization(api, name) });
  if (org.isLoading) return <Loading what="organization" />;
  if (!org.data) return <ErrorNote error={org.error} />;
  return (
    <>
      <div className="page-head">
        <h1>{org.data.name}</h1>
        <Link to={`/agent-pools/${name}`}>Agent pools</Link>
        <Link className="button primary" to={`/boxes/add?${new URLSearchParams({ owner: name })}`}>
          Add a box file
        </Link>
      </div>
      <p className="muted">
        {org.data.email ?? ''} Created <When iso={org.data.created_at} />.
      </p>
      <Members org={name} members={org.data.members ?? []} mayManage={org.data.may_manage} />
      {org.data.may_manage && <ServicePrincipals org={name} />}
      <OrganizationAgentSettings org={name} />
      <Workspaces org={name} />
    </>
  );
}
