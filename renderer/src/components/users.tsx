import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createUser, deleteUser, listUsers } from '../api/accounts';
import { useSession } from '../api/session';
import { MIN_PASSWORD_LENGTH } from '../../../daemon/src/contract/bodies/accounts';
import { ErrorNote, Loading, Section, confirmed, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { When } from './relative-time';

interface Draft {
  username: string;
  password: string;
  email: string;
  admin: boolean;
}
const EMPTY: Draft = { username: '', password: '', email: '', admin: false };

function NewUserForm() {
  const { api } = useSession();
  const [u, setU] = useState<Draft>(EMPTY);
  const create = useAction(
    () => createUser(api, { ...u, email: u.email || null }),
    [queryKeys.users],
    () => setU(EMPTY),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="New user">
      <input
        name="new_username"
        placeholder="Username"
        autoComplete="off"
        value={u.username}
        onChange={(e) => setU({ ...u, username: e.target.value })}
        required
      />
      <input
        name="new_password"
        type="password"
        placeholder={`Password (${MIN_PASSWORD_LENGTH}+ characters)`}
        autoComplete="new-password"
        minLength={MIN_PASSWORD_LENGTH}
        value={u.password}
        onChange={(e) => setU({ ...u, password: e.target.value })}
        required
      />
      <input
        name="new_email"
        type="email"
        placeholder="E-mail (optional)"
        value={u.email}
        onChange={(e) => setU({ ...u, email: e.target.value })}
      />
      <label className="check">
        <input type="checkbox" checked={u.admin} onChange={(e) => setU({ ...u, admin: e.target.checked })} />{' '}
        administrator
      </label>
      <button type="submit" disabled={create.isPending}>
        Create user
      </button>
      <ErrorNote error={create.error} />
    </form>
  );
}

/** Administrators add the lab's people here (the same as `boxyard user create`). */
export function Users() {
  const { api, username } = useSession();
  const users = useQuery({ queryKey: queryKeys.users, queryFn: () => listUsers(api) });
  const remove = useAction((name: string) => deleteUser(api, name), [queryKeys.users]);
  return (
    <Section title="Users">
      <NewUserForm />
      <ErrorNote error={remove.error} />
      {users.isLoading ? <Loading what="users" /> : <ErrorNote error={users.error} />}
      {users.data && (
        <table>
          <thead>
            <tr>
              <th>User</th>
              <th>E-mail</th>
              <th>Role</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.username}>
                <td>{u.username}</td>
                <td>{u.email ?? '—'}</td>
                <td>{u.admin ? 'administrator' : 'user'}</td>
                <td>
                  <When iso={u.created_at} />
                </td>
                <td>
                  {u.username !== username && (
                    <button
                      type="button"
                      className="danger small"
                      onClick={() => confirmed(`Delete user ${u.username}`) && remove.mutate(u.username)}
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
