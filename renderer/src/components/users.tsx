import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createUser, deleteUser, listUsers, resetPassword, setAdministrator } from '../api/accounts';
import { useSession } from '../api/session';
import { CreateUserBody, MIN_PASSWORD_LENGTH } from '../../../daemon/src/contract/bodies/accounts';
import { isApiError } from '../api/client';
import { checked, formError, hintOf, issueAt } from './form-issues';
import { Field } from './form-rules';
import { ErrorNote, Loading, Section, confirmed, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { When } from './relative-time';
import { CardTable } from './card-table';

interface Draft {
  username: string;
  password: string;
  email: string;
  admin: boolean;
}
const EMPTY: Draft = { username: '', password: '', email: '', admin: false };

const RULES = CreateUserBody.shape.user.shape;
const nameTaken = (e: unknown) => isApiError(e, 'conflict');

/** A new account: its rules under each field before anything is typed, and what is wrong beside the field. */
function NewUserForm() {
  const { api } = useSession();
  const [u, setU] = useState<Draft>(EMPTY);
  const create = useAction(
    () => createUser(api, checked(CreateUserBody, { user: { ...u, email: u.email || null } }).user),
    [queryKeys.users],
    () => setU(EMPTY),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form className="provider-form" onSubmit={submit} aria-label="New user" noValidate>
      <Field label="Username" hint={hintOf(RULES.username)} issue={issueAt(create.error, 'user.username', nameTaken)}>
        {(control) => (
          <input
            name="new_username"
            autoComplete="off"
            value={u.username}
            onChange={(e) => setU({ ...u, username: e.target.value })}
            {...control}
          />
        )}
      </Field>
      <Field label="Password" hint={hintOf(RULES.password)} issue={issueAt(create.error, 'user.password')}>
        {(control) => (
          <input
            name="new_password"
            type="password"
            autoComplete="new-password"
            value={u.password}
            onChange={(e) => setU({ ...u, password: e.target.value })}
            {...control}
          />
        )}
      </Field>
      <Field label="E-mail (optional)" issue={issueAt(create.error, 'user.email')}>
        {(control) => (
          <input
            name="new_email"
            type="email"
            value={u.email}
            onChange={(e) => setU({ ...u, email: e.target.value })}
            {...control}
          />
        )}
      </Field>
      <div className="row">
        <label className="check">
          <input type="checkbox" checked={u.admin} onChange={(e) => setU({ ...u, admin: e.target.checked })} />{' '}
          administrator
        </label>
        <button type="submit" disabled={create.isPending}>
          Create user
        </button>
      </div>
      <ErrorNote error={formError(create.error, nameTaken)} />
    </form>
  );
}

/** A new password for another user, typed here (the same as `boxyard user password`): their sessions end. */
function ResetPasswordForm({ username, onDone }: { username: string; onDone: (message: string) => void }) {
  const { api } = useSession();
  const [password, setPassword] = useState('');
  const reset = useAction(
    () => resetPassword(api, username, password),
    [queryKeys.users],
    () => onDone(`${username} has a new password; their tokens and sessions have ended.`),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    reset.mutate(undefined);
  };
  return (
    <form className="inline" onSubmit={submit} aria-label={`New password for ${username}`}>
      <label>
        New password ({MIN_PASSWORD_LENGTH}+ characters)
        <input
          name="reset_password"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSWORD_LENGTH}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </label>
      <button type="submit" className="small" disabled={reset.isPending}>
        Set password
      </button>
      <ErrorNote error={reset.error} />
    </form>
  );
}

/**
 * Administrators add the lab's people here, set a forgotten password, make someone an administrator or not, and
 * delete them (the same as `boxyard user create | password | delete`).
 */
export function Users() {
  const { api, username } = useSession();
  const users = useQuery({ queryKey: queryKeys.users, queryFn: () => listUsers(api) });
  const remove = useAction((name: string) => deleteUser(api, name), [queryKeys.users]);
  const role = useAction(
    (u: { username: string; admin: boolean }) => setAdministrator(api, u.username, u.admin),
    [queryKeys.users],
  );
  const [resetting, setResetting] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  return (
    <Section title="Users">
      <NewUserForm />
      <ErrorNote error={remove.error ?? role.error} />
      {note && (
        <p className="note" role="status">
          {note}
        </p>
      )}
      {users.isLoading ? <Loading what="users" /> : <ErrorNote error={users.error} />}
      {users.data && (
        <CardTable label="Users" columns={['User', 'E-mail', 'Role', 'Created', 'Change']}>
          {users.data.map((u) => (
            <tr key={u.username}>
              <td data-label="User">{u.username}</td>
              <td data-label="E-mail">{u.email ?? '—'}</td>
              <td data-label="Role">{u.admin ? 'administrator' : 'user'}</td>
              <td data-label="Created">
                <When iso={u.created_at} />
              </td>
              <td>
                {u.username !== username && (
                  <div className="row">
                    <button
                      type="button"
                      className="small"
                      onClick={() => {
                        setNote(null);
                        setResetting(resetting === u.username ? null : u.username);
                      }}
                    >
                      Reset password
                    </button>
                    <button
                      type="button"
                      className="small"
                      disabled={role.isPending}
                      onClick={() => role.mutate({ username: u.username, admin: !u.admin })}
                    >
                      {u.admin ? 'Make a plain user' : 'Make administrator'}
                    </button>
                    <button
                      type="button"
                      className="danger small"
                      onClick={() => confirmed(`Delete user ${u.username}`) && remove.mutate(u.username)}
                    >
                      Delete
                    </button>
                  </div>
                )}
                {resetting === u.username && (
                  <ResetPasswordForm
                    username={u.username}
                    onDone={(message) => {
                      setResetting(null);
                      setNote(message);
                    }}
                  />
                )}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}
