import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { deleteMirror, listMirrors, resumeMirror, runMirror } from '../../api/mirrors';
import { ACTIVE_JOB_STATES, type MirrorJson } from '../../../../daemon/src/contract/wire/mirror';
import { useSession } from '../../api/session';
import { MirrorJobs } from './mirror-jobs';
import { ErrorNote, Loading, confirmed, useAction } from '../ui';
import { MirrorSchedule } from './mirror-schedule';
import { queryKeys } from '../../api/query-keys';
import { getBox } from '../../api/boxes';
import { isApiError } from '../../api/client';

/** "versions >= 1.0; latest 3; virtualbox; amd64; private" — what the mirror copies. */
function filtersText(m: MirrorJson): string {
  const parts = [
    m.versions ? `versions ${m.versions}` : m.latest ? `latest ${m.latest}` : 'all versions',
    m.providers.length ? m.providers.join(', ') : 'all providers',
    m.architectures.length ? m.architectures.join(', ') : 'all architectures',
  ];
  if (m.retain) parts.push(`retain ${m.retain}`);
  return parts.join(' · ');
}

/**
 * A target box links to its page once it exists (a job made it); until then, or if it was
 * deleted, it is only its name. A target namespace (ORG) has no page of its own.
 */
function TargetLink({ target }: { target: string }) {
  const { api } = useSession();
  const [user, name] = target.split('/');
  const box = useQuery({
    queryKey: queryKeys.box(user ?? '', name ?? ''),
    queryFn: () => getBox(api, user ?? '', name ?? ''),
    enabled: !!name,
  });
  if (!name) return target;
  if (box.data) return <Link to={`/boxes/${target}`}>{target}</Link>;
  return (
    <>
      {target}
      {isApiError(box.error, 'not_found') && <span className="muted small-text"> (not made yet)</span>}
    </>
  );
}

/** One mirror: Run (or Resume) and Delete as plain buttons; the card around the list has one primary, Create mirror. */
function MirrorCard({ m }: { m: MirrorJson }) {
  const { api } = useSession();
  const run = useAction(() => runMirror(api, m.id), [queryKeys.jobs(m.id), queryKeys.mirrors]);
  const remove = useAction(() => deleteMirror(api, m.id), [queryKeys.mirrors]);
  const resume = useAction(() => resumeMirror(api, m.id), [queryKeys.mirrors]);
  const busy = m.last_job ? ACTIVE_JOB_STATES.includes(m.last_job.state) : false;
  return (
    <article className="version" aria-label={`Mirror ${m.source}`}>
      <header>
        <h3 className="with-links">
          {m.upstream?.name ?? 'upstream'}: {m.source} → <TargetLink target={m.target} />
        </h3>
        {m.private ? <span className="badge">private</span> : null}
        {m.paused ? <span className="badge badge-cancelled">paused</span> : null}
        <span className="spacer" />
        {m.paused ? (
          <button type="button" className="small" disabled={resume.isPending} onClick={() => resume.mutate(undefined)}>
            Resume with my rights
          </button>
        ) : (
          <button
            type="button"
            className="small"
            disabled={run.isPending || busy}
            onClick={() => run.mutate(undefined)}
          >
            {m.last_job ? 'Run again' : 'Run'}
          </button>
        )}
        <button
          type="button"
          className="danger small"
          onClick={() =>
            confirmed(`Delete the mirror of ${m.source} (its local boxes stay)`) && remove.mutate(undefined)
          }
        >
          Delete
        </button>
      </header>
      <div className="muted">
        {filtersText(m)} · <MirrorSchedule key={m.interval_minutes ?? 0} m={m} />
        {m.runs_as ? ` · runs as ${m.runs_as}` : ''}
      </div>
      {m.paused ? (
        <p className="note" role="status">
          {m.paused}
        </p>
      ) : null}
      <ErrorNote error={run.error ?? resume.error ?? remove.error} />
      <MirrorJobs mirrorId={m.id} hint={m.last_job} />
    </article>
  );
}

export function MirrorList() {
  const { api } = useSession();
  const mirrors = useQuery({ queryKey: queryKeys.mirrors, queryFn: () => listMirrors(api), refetchInterval: 10_000 });
  if (mirrors.isLoading) return <Loading what="mirrors" />;
  if (!mirrors.data) return <ErrorNote error={mirrors.error} />;
  if (mirrors.data.length === 0) {
    return (
      <div className="next-step">
        <p>
          No mirrors yet. A mirror copies boxes from an upstream into this registry, once or on a schedule. To bring
          your boxes over from HCP Vagrant, start with Move; for anything else, add an upstream above and a mirror
          below.
        </p>
        <Link className="button" to="/mirrors/move">
          Move your boxes from HCP Vagrant
        </Link>
      </div>
    );
  }
  return (
    <>
      {mirrors.data.map((m) => (
        <MirrorCard key={m.id} m={m} />
      ))}
    </>
  );
}
