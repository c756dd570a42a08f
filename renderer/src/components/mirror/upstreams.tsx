import { useQuery } from '@tanstack/react-query';
import { deleteUpstream, listUpstreams, testUpstream } from '../../api/mirrors';
import type { UpstreamJson } from '../../../../daemon/src/contract/wire/mirror';
import type { UpstreamTestJson } from '../../../../daemon/src/contract/wire/mirror-actions';
import { useSession } from '../../api/session';
import { ErrorNote, Loading, Section, confirmed, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';
import { When } from '../relative-time';
import { CardTable } from '../card-table';
import { NewUpstreamForm } from './upstream-form';

/**
 * The upstream's health: red while it is paused (the breaker), or while its last test or request
 * failed (until one succeeds), with why in the network's words; green when the last one worked.
 */
function Health({ u }: { u: UpstreamJson }) {
  const paused = u.paused_until && new Date(u.paused_until).getTime() > Date.now();
  const failing = u.failures > 0 || !!u.last_error;
  return (
    <>
      {paused ? (
        <span className="badge badge-errored">
          paused until <When iso={u.paused_until} />
        </span>
      ) : failing ? (
        <span className="badge badge-errored">failing</span>
      ) : (
        <span className="badge badge-active">ok</span>
      )}
      {u.failures > 0 && (
        <span className="muted">
          {' '}
          {u.failures} of {u.max_failures} failures before a pause
        </span>
      )}
      {u.last_error && <div className="error small-text">{u.last_error}</div>}
    </>
  );
}

/**
 * "Test connection": the daemon asks the upstream with its stored token. A failure is already the
 * upstream's health (above), so only when it was tested, or what answered, is said here.
 */
function TestResult({ test, u }: { test: UpstreamTestJson; u: UpstreamJson }) {
  const repeated = !test.ok && test.message === u.last_error;
  return (
    <div role="status" aria-label={`Connection test: ${test.ok ? 'ok' : 'failed'}`} className="muted small-text">
      {test.ok ? 'Test ok ' : 'Test failed '}
      <When iso={test.tested_at} />
      {repeated ? '.' : `: ${test.message}`}
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
      <td data-label="Name">{u.name}</td>
      <td data-label="URL" className="mono">
        {u.url}
      </td>
      <td data-label="Kind">{u.kind ?? '—'}</td>
      <td data-label="Token">{u.has_token ? 'yes' : 'no'}</td>
      <td data-label="Health">
        <Health u={u} />
        {test.data && <TestResult test={test.data} u={u} />}
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
        <CardTable label="Upstreams" columns={['Name', 'URL', 'Kind', 'Token', 'Health', 'Change']}>
          {upstreams.data.map((u) => (
            <UpstreamRow key={u.id} u={u} />
          ))}
        </CardTable>
      )}
      <NewUpstreamForm />
    </Section>
  );
}
