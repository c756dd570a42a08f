import { useState, type FormEvent } from 'react';
import { changePassword } from '../api/accounts';
import { isApiError } from '../api/client';
import { useSession } from '../api/session';
import { MIN_PASSWORD_LENGTH } from '../../../daemon/src/contract/bodies/accounts';
import { ErrorNote, Section, useAction } from './ui';
import { queryKeys } from '../api/query-keys';

/** Where the daemon's refusal belongs: its code names the field at fault. */
function fieldOf(error: unknown): 'current' | 'new' | 'form' {
  if (isApiError(error, 'reauthentication_required')) return 'current';
  if (isApiError(error, 'validation')) return 'new';
  return 'form';
}

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
    () => changePassword(api, username ?? '', current, next),
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
  const at = fieldOf(change.error);
  return (
    <Section title="Password">
      <form className="stack" onSubmit={submit} aria-label="Change password">
        <label>
          Current password
          <input
            type="password"
            name="current_password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            required
            aria-invalid={at === 'current' || undefined}
          />
        </label>
        {at === 'current' && (
          <p className="error" role="alert">
            The current password is wrong: nothing was changed.
          </p>
        )}
        <label>
          New password
          <input
            type="password"
            name="new_password"
            autoComplete="new-password"
            minLength={MIN_PASSWORD_LENGTH}
            value={next}
            onChange={(e) => setNext(e.target.value)}
            placeholder={`${MIN_PASSWORD_LENGTH}+ characters`}
            required
            aria-invalid={at === 'new' || undefined}
          />
        </label>
        {at !== 'current' && <ErrorNote error={change.error} />}
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
