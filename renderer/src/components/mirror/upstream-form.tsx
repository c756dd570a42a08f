import { useState, type FormEvent } from 'react';
import { createUpstream, type NewUpstream } from '../../api/mirrors';
import { isApiError } from '../../api/client';
import { useSession } from '../../api/session';
import { numberOrUndefined } from '../format';
import { ErrorNote, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';
import { UpstreamTokenField } from './upstream-token';
import { CreateUpstream, UPSTREAM_DEFAULTS, UPSTREAM_URL_RULE } from '../../../../daemon/src/contract/bodies/mirror';
import { Field, type ControlProps } from '../form-rules';
import { checked, formError, hintOf, issueAt } from '../form-issues';

interface Draft {
  name: string;
  url: string;
  token: string;
  timeout: string;
  maxFailures: string;
  pause: string;
}
const EMPTY: Draft = { name: '', url: '', token: '', timeout: '', maxFailures: '', pause: '' };

function toUpstream(d: Draft): NewUpstream {
  return {
    name: d.name.trim() || undefined,
    url: d.url.trim(),
    token: d.token || undefined,
    timeout_seconds: numberOrUndefined(d.timeout),
    max_failures: numberOrUndefined(d.maxFailures),
    pause_minutes: numberOrUndefined(d.pause),
  };
}

const RULES = CreateUpstream.shape;
/** A field's rule in words, then what an empty field means: the daemon's default (contract/bodies/mirror.ts). */
const withDefault = (schema: unknown, empty: string) => `${hintOf(schema) ?? ''} Empty: ${empty}.`;

/** The daemon's refusals a field owns: a name taken; a URL it cannot read or may not reach. */
const nameTaken = (e: unknown) => isApiError(e, 'conflict');
const badUrl = (e: unknown) => isApiError(e, 'validation') || isApiError(e, 'address_not_allowed');
// The contract checks a URL's length; which kinds it may be, only the daemon can (mirror/schemas.ts).
const urlIssue = (e: unknown) =>
  isApiError(e, 'validation') ? `The URL ${UPSTREAM_URL_RULE}.` : issueAt(e, 'url', badUrl);

/**
 * Name, URL, a token that is sent once and never shown again (a password field), and the circuit
 * breaker's three numbers, each with what it does and what an empty field means.
 */
export function NewUpstreamForm() {
  const { api } = useSession();
  const [d, setD] = useState<Draft>(EMPTY);
  const set = (patch: Partial<Draft>) => setD({ ...d, ...patch });
  const create = useAction(
    () => createUpstream(api, checked(CreateUpstream, toUpstream(d))),
    [queryKeys.upstreams],
    () => setD(EMPTY),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  const error = create.error;
  const number = (key: 'timeout' | 'maxFailures' | 'pause') => (control: ControlProps) => (
    <input
      type="number"
      name={{ timeout: 'timeout_seconds', maxFailures: 'max_failures', pause: 'pause_minutes' }[key]}
      value={d[key]}
      onChange={(e) => set({ [key]: e.target.value })}
      {...control}
    />
  );
  return (
    <form className="provider-form" onSubmit={submit} aria-label="New upstream">
      <Field label="Name (optional)" hint={hintOf(RULES.name)} issue={issueAt(error, 'name', nameTaken)}>
        {(control) => (
          <input name="upstream_name" value={d.name} onChange={(e) => set({ name: e.target.value })} {...control} />
        )}
      </Field>
      <Field label="URL" className="wide" hint={hintOf(RULES.url)} issue={urlIssue(error)}>
        {(control) => (
          <input
            name="upstream_url"
            value={d.url}
            onChange={(e) => set({ url: e.target.value })}
            required
            {...control}
          />
        )}
      </Field>
      <UpstreamTokenField
        label="Token (optional)"
        value={d.token}
        onChange={set}
        title="Sent once and never shown again: the list says only whether there is one"
      />
      <Field
        label="Timeout (seconds)"
        hint={withDefault(RULES.timeout_seconds, `${UPSTREAM_DEFAULTS.timeout_seconds} seconds`)}
        issue={issueAt(error, 'timeout_seconds')}
      >
        {number('timeout')}
      </Field>
      <Field
        label="Failures before pausing"
        hint={withDefault(RULES.max_failures, `${UPSTREAM_DEFAULTS.max_failures} failures`)}
        issue={issueAt(error, 'max_failures')}
      >
        {number('maxFailures')}
      </Field>
      <Field
        label="Pause after those failures (minutes)"
        hint={withDefault(RULES.pause_minutes, `${UPSTREAM_DEFAULTS.pause_minutes} minutes`)}
        issue={issueAt(error, 'pause_minutes')}
      >
        {number('pause')}
      </Field>
      <ErrorNote error={formError(error, (e) => nameTaken(e) || badUrl(e))} />
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add upstream
        </button>
      </div>
    </form>
  );
}
