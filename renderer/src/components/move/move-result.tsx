import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { getOverview } from '../../api/overview';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import { clientLines } from '../../../../daemon/src/contract/client-lines';
import { CLIENT_CA_FILE } from '../../../../daemon/src/contract/lan';
import { TrustStep } from '../trust-step';
import type { JobJson } from '../../../../daemon/src/contract/wire/mirror';
import { fieldWords } from '../box/upstream-note';
import { CopyField, Loading, Section } from '../ui';
import { SkippedBoxes } from './move-plan';
import type { Planned } from './move-form';
import { CardTable } from '../card-table';

type Published = JobJson['published'][number];

/** What else the run took from the upstream: box fields, version notes, revocations. */
function alsoText(p: Published): string {
  const parts = [
    p.updated?.length ? p.updated.map(fieldWords).join(', ') : '',
    p.described?.length ? `notes of ${p.described.join(', ')}` : '',
    p.revoked?.length ? `revoked ${p.revoked.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : '—';
}

function PublishedBoxes({ published }: { published: Published[] }) {
  if (published.length === 0) return <p className="muted">Nothing new: every version was here already.</p>;
  return (
    <CardTable label="Published boxes" columns={['Box', 'Versions published', 'Also from the upstream']}>
      {published.map((p) => (
        <tr key={p.box}>
          <td data-label="Box">
            <Link to={`/boxes/${p.box}`}>{p.box}</Link>
          </td>
          <td data-label="Versions published">{p.versions.length ? p.versions.join(', ') : '—'}</td>
          <td data-label="Also from the upstream">{alsoText(p)}</td>
        </tr>
      ))}
    </CardTable>
  );
}

/**
 * The lines that point vagrant at this server (contract/client-lines.ts, as `boxyard mirror`
 * prints them): the URL colleagues reach it at (the overview's first, else this page's origin).
 * Whether any box is private comes from the plan; after a reload, without it, the token line stays.
 */
function ClientLines({ job, planned }: { job: JobJson; planned: Planned | null }) {
  const { api } = useSession();
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => getOverview(api) });
  if (overview.isLoading) return <Loading what="this server's address" />;
  const url = overview.data?.lan_urls[0] ?? window.location.origin;
  const fingerprint = overview.data?.tls?.fingerprint ?? null;
  const server = { url, caFile: fingerprint ? CLIENT_CA_FILE : null };
  const boxes = [...new Set([...job.published.map((p) => p.box), ...(planned?.plan.boxes.map((b) => b.target) ?? [])])];
  const anyPrivate = planned ? planned.plan.boxes.some((b) => b.private) : true;
  return (
    <>
      <TrustStep server={server} fingerprint={fingerprint} what="these lines, on each machine" />
      <CopyField lines label="Lines for your users" value={clientLines(server, boxes, anyPrivate).join('\n')} />
    </>
  );
}

/** A finished copy: the boxes published, those skipped, and what to tell the people who use them. */
export function MoveResult({ job, planned }: { job: JobJson; planned: Planned | null }) {
  return (
    <>
      <Section title="Copied">
        <PublishedBoxes published={job.published} />
        <SkippedBoxes skipped={job.skipped} />
      </Section>
      <Section title="Give your users these lines">
        <p>For everyone who uses these boxes: pointed at this server, vagrant finds them under the same names.</p>
        <ClientLines job={job} planned={planned} />
      </Section>
    </>
  );
}
