import { useQuery } from '@tanstack/react-query';
import { getJob } from '../../api/mirrors';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import { ACTIVE_JOB_STATES } from '../../../../daemon/src/contract/wire/mirror';
import { JobProgress, useResultsWhenFinished } from '../mirror/mirror-jobs';
import { ErrorNote, Loading, Section } from '../ui';
import { MoveResult } from './move-result';
import type { Planned } from './move-form';

/**
 * The copy's job (its id is in the page's address, so a reload finds it again): the Mirrors page's
 * progress bar with Cancel, asked again every second while it is queued or running; once done, what
 * it published and the lines to give users.
 */
export function MoveJob({ jobId, planned }: { jobId: string; planned: Planned | null }) {
  const { api } = useSession();
  const job = useQuery({
    queryKey: queryKeys.job(jobId),
    queryFn: () => getJob(api, jobId),
    // While queued or running; a job that cannot be read at all (a wrong id in the address) is not asked again.
    refetchInterval: (q) =>
      (q.state.data ? ACTIVE_JOB_STATES.includes(q.state.data.state) : !q.state.error) ? 1000 : false,
  });
  const j = job.data;
  useResultsWhenFinished(j ? ACTIVE_JOB_STATES.includes(j.state) : false);
  return (
    <>
      <Section title="The copy">
        {job.isLoading ? <Loading what="the copy" /> : <ErrorNote error={job.error} />}
        {j && <JobProgress job={j} mirrorId={j.mirror_id} />}
        {j?.state === 'cancelled' && (
          <p className="muted">
            Cancelled. See the plan and start the copy again: nothing already stored here is fetched twice.
          </p>
        )}
      </Section>
      {j?.state === 'done' && <MoveResult job={j} planned={planned} />}
    </>
  );
}
