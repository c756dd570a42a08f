import { createMirror } from '../../api/mirrors';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import {
  TOKEN_CHECK_WORDS,
  type JobJson,
  type MirrorPlanBoxJson,
  type MirrorPlanJson,
} from '../../../../daemon/src/contract/wire/mirror';
import { formatBytes } from '../format';
import { Stat } from '../stat';
import { ErrorNote, Section, useAction } from '../ui';
import type { Planned } from './move-form';
import { CardTable } from '../card-table';

/** Boxes the upstream listed but would not show, with why: in the plan and in what a job did. */
export function SkippedBoxes({ skipped }: { skipped: Array<{ box: string; reason: string }> }) {
  if (skipped.length === 0) return null;
  return (
    <>
      <h3>Skipped</h3>
      <ul className="plain" aria-label="Skipped boxes">
        {skipped.map((s) => (
          <li key={s.box}>
            <strong>{s.box}</strong>: <span className="muted">{s.reason}</span>
          </li>
        ))}
      </ul>
    </>
  );
}

const SHOWN_VERSIONS = 4;

/** "1.2.0, 1.1.0, 1.0.0", or the newest few and how many more. */
function versionsText(b: MirrorPlanBoxJson): string {
  if (b.versions.length === 0) return b.exists ? 'nothing new' : 'none';
  const names = b.versions.map((v) => v.version);
  const more = names.length - SHOWN_VERSIONS;
  return more > 0 ? `${names.slice(0, SHOWN_VERSIONS).join(', ')} and ${more} more` : names.join(', ');
}

function PlanBoxes({ boxes }: { boxes: MirrorPlanBoxJson[] }) {
  if (boxes.length === 0) return <p className="muted">No box to copy.</p>;
  return (
    <CardTable
      label="Boxes to copy"
      className="plan-boxes"
      columns={['Box here', 'Visibility', 'Versions', 'Files', 'Size']}
    >
      {boxes.map((b) => (
        <tr key={b.target}>
          <td data-label="Box here">
            {b.target}
            {b.source !== b.target && <span className="muted small-text"> from {b.source}</span>}
            {b.exists && (
              <span className="badge" title="The box is here already: only the versions it lacks are fetched">
                here already
              </span>
            )}
          </td>
          <td data-label="Visibility">
            <span className="badge">{b.private ? 'private' : 'public'}</span>
          </td>
          <td data-label="Versions">{versionsText(b)}</td>
          <td data-label="Files">{b.files}</td>
          <td data-label="Size" className="nowrap">
            {formatBytes(b.bytes)}
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

/** Whether the files still to fetch fit the data folder's disk, leaving its reserve. */
function Fits({ s }: { s: MirrorPlanJson['storage'] }) {
  if (s.free_bytes === null) {
    return (
      <p className="plan-fit fits" role="status">
        <strong>Stored in the bucket</strong>: {formatBytes(s.needed_bytes)} to fetch, no disk to fill here.
      </p>
    );
  }
  const numbers = `${formatBytes(s.needed_bytes)} to fetch; free now ${formatBytes(s.free_bytes)}, after ${formatBytes(s.free_after_bytes)}; ${formatBytes(s.reserve_bytes)} kept in reserve.`;
  return s.fits ? (
    <p className="plan-fit fits" role="status">
      <strong>Fits on disk</strong>: {numbers}
    </p>
  ) : (
    <p className="plan-fit error" role="alert">
      <strong>Does NOT fit on disk</strong>: {numbers} Free some space, or copy into a Boxyard with a larger disk.
    </p>
  );
}

/** What checking the upstream token found (a token it refuses fails the plan instead): nothing without a token. */
function TokenCheck({ check }: { check: MirrorPlanJson['upstream']['token_check'] }) {
  if (!check) return null;
  return (
    <p className="plan-token">
      <strong>Token check</strong>: {TOKEN_CHECK_WORDS[check]}.
    </p>
  );
}

function Totals({ t }: { t: MirrorPlanJson['totals'] }) {
  return (
    <fieldset className="stats" aria-label="Totals">
      <Stat label="boxes" value={String(t.boxes)} />
      <Stat label="versions" value={String(t.versions)} />
      <Stat
        label="files"
        value={String(t.files)}
        note={t.unknown_sizes ? `${t.unknown_sizes} of unknown size, not counted` : undefined}
      />
      <Stat label="in all" value={formatBytes(t.bytes)} />
    </fieldset>
  );
}

/**
 * What the copy would fetch, and "Start the copy": the mirror the plan was made for, run at once
 * (disabled when it does not fit). Remounted for each plan, so a plan is started at most once.
 */
export function MovePlan({ planned, onStarted }: { planned: Planned; onStarted: (job: JobJson) => void }) {
  const { api } = useSession();
  const { plan } = planned;
  const start = useAction(
    async () => {
      const created = await createMirror(api, { ...planned.mirror, run: true });
      if (!created.job)
        throw new Error(
          `The mirror of ${created.mirror.source} was made, but no job started: run it on the Mirrors page.`,
        );
      return created.job;
    },
    [queryKeys.mirrors],
    onStarted,
  );
  return (
    <Section title={`The plan: ${plan.source} → ${plan.target}`}>
      <TokenCheck check={plan.upstream.token_check} />
      <Totals t={plan.totals} />
      <PlanBoxes boxes={plan.boxes} />
      <SkippedBoxes skipped={plan.skipped} />
      <Fits s={plan.storage} />
      <ErrorNote error={start.error} />
      <div className="row">
        <button
          type="button"
          className="primary"
          disabled={!plan.storage.fits || start.isPending || start.isSuccess}
          onClick={() => start.mutate(undefined)}
        >
          Start the copy
        </button>
        {start.isSuccess && <span className="muted">Started: follow it below.</span>}
      </div>
    </Section>
  );
}
