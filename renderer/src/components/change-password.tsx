import { useState, type FormEvent } from 'react';
import { changePassword } from '../api/accounts';
import { isApiError } from '../api/client';
import { useSession } from '../api/session';
import { UpdateUserBody } from '../../../daemon/src/contract/bodies/accounts';
import { ErrorNote, Section, useAction } from './ui';
import { queryKeys } from '../api/query-keys';
import { Field } from './form-rules';
import { checked, formError, hintOf, issueAt } from './form-issues';

const USER = UpdateUserBody.shape.user;
/** Where the daemon's refusal belongs: its code names the field at fault. */
const wrongCurrent = (e: unknown) => isApiError(e, 'reauthentication_required');
const badNew = (e: unknown) => isApiError(e, 'validation');

/**
 * The signed-in user's password: the current one, then the new one. The daemon signs out every
 * other session and API token of the user; this one stays.
 */
export function ChangePassword() {
  const { api, username } = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(
    () => changePassword(api, username ?? '', current, checked(USER, { password: next }).password ?? next),
    [queryKeys.apiTokens],
    () => {
      setCurrent('');
      setNext('');
      setDone(true);
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(false);
    change.mutate(undefined);
  };
  const error = change.error;
  return (
    <Section title="Password">
      <form className="stack" onSubmit={submit} aria-label="Change password">
        <Field label="Current password" issue={issueAt(error, 'current_password', wrongCurrent)}>
          {(control) => (
            <input
              type="password"
              name="current_password"
              autoComplete="current-password"
              value={current}
              onChange={(e) => setCurrent(e.target.value)}
              required
              {...control}
            />
          )}
        </Field>
        <Field label="New password" hint={hintOf(USER.shape.password)} issue={issueAt(error, 'password', badNew)}>
          {(control) => (
            <input
              type="password"
              name="new_password"
              autoComplete="new-password"
              value={next}
              onChange={(e) => setNext(e.target.value)}
              required
              {...control}
            />
          )}
        </Field>
        <ErrorNote error={formError(error, (e) => wrongCurrent(e) || badNew(e))} />
        <div>
          <button type="submit" className="primary" disabled={change.isPending}>
            Change password
          </button>
        </div>
        {done && (
          <p className="ok" role="status">
            Password changed. Your other sessions and API tokens were signed out; this one stays.
          </p>
        )}
      </form>
    </Section>
  );
}
