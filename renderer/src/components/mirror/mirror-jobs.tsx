import { useEffect, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { cancelJob, listJobs } from '../../api/mirrors';
import { ACTIVE_JOB_STATES, type JobJson } from '../../../../daemon/src/contract/wire/mirror';
import { useSession } from '../../api/session';
import { formatBytes, formatDuration } from '../format';
import { ErrorNote, StatusBadge, useAction } from '../ui';
import { queryKeys, mirrorResults } from '../../api/query-keys';
import { When } from '../relative-time';
import { CardTable } from '../card-table';

/** What a finished job published, e.g. "ORG/BOX 1.0.0, 1.1.0". */
const publishedText = (j: JobJson) => j.published.map((p) => `${p.box} ${p.versions.join(', ')}`).join('; ');

/** The bar and the numbers of one job: bytes, files, rate, ETA, its message, and Cancel while it runs. */
export function JobProgress({ job, mirrorId }: { job: JobJson; mirrorId: string }) {
  const { api } = useSession();
  const cancel = useAction(
    () => cancelJob(api, job.id),
    [queryKeys.jobs(mirrorId), queryKeys.job(job.id), queryKeys.mirrors],
  );
  const active = ACTIVE_JOB_STATES.includes(job.state);
  const total = job.bytes_total;
  const done = job.bytes_done;
  const fraction = total > 0 ? Math.min(1, done / total) : job.state === 'done' ? 1 : undefined;
  // A bar only for a job that moves or finished: a failed or cancelled job's bar would show progress that is not there.
  const bar = active || job.state === 'done';
  return (
    <article className="job" aria-label={`Job ${job.id}`} data-state={job.state}>
      <div className="row">
        <StatusBadge status={job.state} />
        {/* No value while the size is unknown: the browser draws an indeterminate bar. */}
        {bar && <progress max={1} value={fraction} aria-label={`Progress of job ${job.id}`} />}
        {bar && <span className="muted">{fraction === undefined ? '' : `${Math.round(fraction * 100)}%`}</span>}
        {active && (
          <button type="button" className="small" disabled={cancel.isPending} onClick={() => cancel.mutate(undefined)}>
            Cancel
          </button>
        )}
      </div>
      <div className="job-numbers muted">
        <span>
          {formatBytes(done)} of {formatBytes(total)}
        </span>
        <span>
          files {job.files_done}/{job.files_total}
        </span>
        {active && <span>{job.rate_bytes_per_second ? `${formatBytes(job.rate_bytes_per_second)}/s` : '—/s'}</span>}
        {active && <span>ETA {formatDuration(job.eta_seconds)}</span>}
        <span>
          {job.finished_at ? (
            <>
              finished <When iso={job.finished_at} />
            </>
          ) : (
            <>
              started <When iso={job.started_at ?? job.created_at} />
            </>
          )}
        </span>
      </div>
      {job.message && (
        <p className={job.state === 'failed' ? 'error' : 'muted'} role={job.state === 'failed' ? 'alert' : undefined}>
          {job.message}
        </p>
      )}
      {/* The daemon's own message usually says what was published already. */}
      {job.state === 'done' && !job.message && publishedText(job) && (
        <p className="muted">Published {publishedText(job)}.</p>
      )}
      <ErrorNote error={cancel.error} />
    </article>
  );
}

function JobHistory({ jobs }: { jobs: JobJson[] }) {
  return (
    <CardTable label="Job history" columns={['Job', 'State', 'Transferred', 'Files', 'Started', 'Finished', 'Message']}>
      {jobs.map((j) => (
        <tr key={j.id}>
          <td data-label="Job" className="mono">
            {j.id}
          </td>
          <td data-label="State">
            <StatusBadge status={j.state} />
          </td>
          <td data-label="Transferred">{formatBytes(j.bytes_done)}</td>
          <td data-label="Files">
            {j.files_done}/{j.files_total}
          </td>
          <td data-label="Started">
            <When iso={j.started_at} />
          </td>
          <td data-label="Finished">
            <When iso={j.finished_at} />
          </td>
          <td data-label="Message">{j.message ?? ''}</td>
        </tr>
      ))}
    </CardTable>
  );
}

/** When a job this page watched stops being active, the lists that show its results are fetched again. */
export function useResultsWhenFinished(active: boolean): void {
  const qc = useQueryClient();
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      for (const queryKey of mirrorResults) void qc.invalidateQueries({ queryKey });
    }
    wasActive.current = active;
  }, [active, qc]);
}

/**
 * A mirror's jobs, newest first: the newest with its live bar, older ones on demand. Polls every
 * second while a job is queued or running; when one finishes, the lists that show its results refresh.
 */
export function MirrorJobs({ mirrorId, hint }: { mirrorId: string; hint?: JobJson | null }) {
  const { api } = useSession();
  const qc = useQueryClient();
  const [showAll, setShowAll] = useState(false);
  const jobs = useQuery({
    queryKey: queryKeys.jobs(mirrorId),
    queryFn: () => listJobs(api, mirrorId),
    refetchInterval: (q) => ((q.state.data ?? []).some((j) => ACTIVE_JOB_STATES.includes(j.state)) ? 1000 : false),
  });
  const newest = jobs.data?.[0] ?? hint ?? null;
  useResultsWhenFinished(newest ? ACTIVE_JOB_STATES.includes(newest.state) : false);
  // The mirror list saw a job this query has not (a scheduled run): fetch again.
  const hintId = hint?.id;
  const unseenId = hintId && jobs.data && !jobs.data.some((j) => j.id === hintId) ? hintId : undefined;
  useEffect(() => {
    if (unseenId) void qc.invalidateQueries({ queryKey: queryKeys.jobs(mirrorId) });
  }, [unseenId, mirrorId, qc]);
  if (!newest) return jobs.error ? <ErrorNote error={jobs.error} /> : <p className="muted">No jobs yet.</p>;
  const older = (jobs.data ?? []).slice(1);
  return (
    <div className="stack-wide">
      <ErrorNote error={jobs.error} />
      <JobProgress job={newest} mirrorId={mirrorId} />
      {older.length > 0 && (
        <button type="button" className="link" onClick={() => setShowAll(!showAll)}>
          {showAll ? 'Hide' : 'Show'} {older.length} earlier job{older.length === 1 ? '' : 's'}
        </button>
      )}
      {showAll && older.length > 0 && <JobHistory jobs={older} />}
    </div>
  );
}
