import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createUpstream, deleteUpstream, listUpstreams, testUpstream, type NewUpstream } from '../../api/mirrors';
import type { UpstreamJson } from '../../../../daemon/src/contract/wire/mirror';
import type { UpstreamTestJson } from '../../../../daemon/src/contract/wire/mirror-actions';
import { useSession } from '../../api/session';
import { numberOrUndefined } from '../format';
import { ErrorNote, Loading, Section, confirmed, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';
import { When } from '../relative-time';
import { UpstreamTokenField } from './upstream-token';
import { UPSTREAM_DEFAULTS } from '../../../../daemon/src/contract/bodies/mirror';

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
    name: d.name.trim(),
    url: d.url.trim(),
    token: d.token || undefined,
    timeout_seconds: numberOrUndefined(d.timeout),
    max_failures: numberOrUndefined(d.maxFailures),
    pause_minutes: numberOrUndefined(d.pause),
  };
}

/** Name, URL, and a token that is sent once and never shown again (a password field). */
function NewUpstreamForm() {
  const { api } = useSession();
  const [d, setD] = useState<Draft>(EMPTY);
  const set = (patch: Partial<Draft>) => setD({ ...d, ...patch });
  const create = useAction(
    () => createUpstream(api, toUpstream(d)),
    [queryKeys.upstreams],
    () => setD(EMPTY),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form className="provider-form" onSubmit={submit} aria-label="New upstream">
      <label>
        Name
        <input
          name="upstream_name"
          value={d.name}
          onChange={(e) => set({ name: e.target.value })}
          required
          placeholder="hcp"
        />
      </label>
      <label className="wide">
        URL
        <input
          name="upstream_url"
          value={d.url}
          onChange={(e) => set({ url: e.target.value })}
          required
          placeholder="https://vagrantcloud.com, another Boxyard, or /srv/export"
        />
      </label>
      <UpstreamTokenField
        label="Token (optional)"
        value={d.token}
        onChange={set}
        title="Sent once and never shown again: the list says only whether there is one"
      />
      <label>
        Timeout (s)
        <input
          name="timeout_seconds"
          type="number"
          min={1}
          value={d.timeout}
          onChange={(e) => set({ timeout: e.target.value })}
          placeholder={String(UPSTREAM_DEFAULTS.timeout_seconds)}
        />
      </label>
      <label>
        Max failures
        <input
          name="max_failures"
          type="number"
          min={1}
          value={d.maxFailures}
          onChange={(e) => set({ maxFailures: e.target.value })}
          placeholder={String(UPSTREAM_DEFAULTS.max_failures)}
        />
      </label>
      <label>
        Pause (min)
        <input
          name="pause_minutes"
          type="number"
          min={0}
          value={d.pause}
          onChange={(e) => set({ pause: e.target.value })}
          placeholder={String(UPSTREAM_DEFAULTS.pause_minutes)}
        />
      </label>
      <ErrorNote error={create.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          Add upstream
        </button>
      </div>
    </form>
  );
}

/** The circuit breaker's state: how many failures in a row, paused until when, and why. */
function Health({ u }: { u: UpstreamJson }) {
  const paused = u.paused_until && new Date(u.paused_until).getTime() > Date.now();
  return (
    <>
      {paused ? (
        <span className="badge badge-errored">
          paused until <When iso={u.paused_until} />
        </span>
      ) : (
        <span className="badge badge-active">ok</span>
      )}
      <span className="muted">
        {' '}
        {u.failures ?? 0}/{u.max_failures ?? '—'} failures
      </span>
      {u.last_error && <div className="muted small-text">Last error: {u.last_error}</div>}
    </>
  );
}

/** "Test connection": the daemon asks the upstream with its stored token and says ok, or what failed with its code. */
function TestResult({ test }: { test: UpstreamTestJson }) {
  return (
    <div
      role="status"
      aria-label={`Connection test: ${test.ok ? 'ok' : 'failed'}`}
      className={test.ok ? 'muted small-text' : 'error small-text'}
    >
      {test.ok ? (
        <span className="badge badge-active">ok</span>
      ) : (
        <span className="badge badge-errored">{test.code}</span>
      )}{' '}
      {test.message}
    </div>
  );
}

function UpstreamRow({ u }: { u: UpstreamJson }) {
  const { api } = useSession();
  const remove = useAction(() => deleteUpstream(api, u.id), [queryKeys.upstreams, queryKeys.mirrors]);
  // The test changes the breaker's count like any request: the row's health is fetched again.
  const test = useAction(() => testUpstream(api, u.id), [queryKeys.upstreams]);
  return (
    <tr>
      <td>{u.name}</td>
      <td className="mono">{u.url}</td>
      <td>{u.kind ?? '—'}</td>
      <td>{u.has_token ? 'yes' : 'no'}</td>
      <td>
        <Health u={u} />
        {test.data && <TestResult test={test.data} />}
      </td>
      <td>
        <div className="row">
          <button
            type="button"
            className="small"
            disabled={test.isPending}
            onClick={() => test.mutate(undefined)}
            aria-label={`Test connection to ${u.name}`}
          >
            {test.isPending ? 'Testing…' : 'Test connection'}
          </button>
          <button
            type="button"
            className="danger small"
            onClick={() => confirmed(`Delete upstream ${u.name} and its mirrors`) && remove.mutate(undefined)}
          >
            Delete
          </button>
        </div>
        <ErrorNote error={test.error ?? remove.error} />
      </td>
    </tr>
  );
}

/** Where mirrors and the pull-through cache fetch from. */
export function Upstreams() {
  const { api } = useSession();
  const upstreams = useQuery({
    queryKey: queryKeys.upstreams,
    queryFn: () => listUpstreams(api),
    refetchInterval: 15_000,
  });
  return (
    <Section title="Upstreams">
      {upstreams.isLoading ? <Loading what="upstreams" /> : <ErrorNote error={upstreams.error} />}
      {upstreams.data?.length === 0 && (
        <p className="muted">No upstreams yet: add the registry or folder to copy boxes from.</p>
      )}
      {upstreams.data && upstreams.data.length > 0 && (
        <table aria-label="Upstreams">
          <thead>
            <tr>
              <th>Name</th>
              <th>URL</th>
              <th>Kind</th>
              <th>Token</th>
              <th>Health</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {upstreams.data.map((u) => (
              <UpstreamRow key={u.id} u={u} />
            ))}
          </tbody>
        </table>
      )}
      <NewUpstreamForm />
    </Section>
  );
}
