import { Link, Navigate } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { getOverview } from '../api/overview';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';
import type { ActivityJson, OverviewJson } from '../../../daemon/src/contract/wire/overview';
import { CopyField, ErrorNote, Loading, Section, StatusBadge } from '../components/ui';
import { formatBytes } from '../components/format';
import { When } from '../components/relative-time';
import { CardTable } from '../components/card-table';
import { Stat } from '../components/stat';
import { caFileLines, CLIENT_CA_FILE } from '../../../daemon/src/contract/lan';
import { TrustStep } from '../components/trust-step';
import { LocalCaNote } from '../components/local-ca-note';
import { GettingStarted } from '../components/getting-started';
import { OrganizationCounts } from '../components/organization-counts';

/** `/`: the overview for a signed-in user, the public catalogue for anyone else. */
export function Home() {
  const { signedIn } = useSession();
  return <Navigate to={signedIn ? '/overview' : '/boxes'} replace />;
}

function Storage({ o }: { o: OverviewJson }) {
  const { storage: s, counts } = o;
  const used = s.disk_total_bytes - s.disk_free_bytes;
  return (
    <Section title="Storage and boxes">
      <div className="stats">
        <Stat label="box files stored" value={formatBytes(s.files_bytes)} />
        <Stat
          label="free on the data disk"
          value={formatBytes(s.disk_free_bytes)}
          note={`of ${formatBytes(s.disk_total_bytes)} (${formatBytes(used)} used); ${formatBytes(s.reserve_bytes)} kept in reserve`}
        />
        <Stat label="boxes" value={String(counts.boxes)} />
        <Stat label="versions" value={String(counts.versions)} />
        <Stat label="files" value={String(counts.files)} />
      </div>
    </Section>
  );
}

function Server({ o }: { o: OverviewJson }) {
  const failing = Object.entries(o.health.checks).filter(([, c]) => c.status !== 'ok');
  return (
    <Section title="This server">
      <h3>URL for colleagues</h3>
      {o.lan_urls.length > 0 ? (
        o.lan_urls.map((url) => <CopyField key={url} label="LAN URL" value={url} />)
      ) : (
        <p className="muted">
          This server listens on this machine only ({window.location.origin}). Start it with <code>--host 0.0.0.0</code>{' '}
          (or switch LAN access on in the desktop app) to serve the LAN.
        </p>
      )}
      <Https o={o} />
      <p>
        Boxyard <strong>{o.version}</strong> · health <StatusBadge status={o.health.status} />
      </p>
      {failing.length > 0 && (
        <ul className="plain">
          {failing.map(([name, c]) => (
            <li key={name}>
              <strong>{name}</strong>: {c.status}
              {c.detail ? ` — ${c.detail}` : ''}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

/** HTTPS: with the daemon's own CA, its fingerprint and how a client trusts it (docs/https.md). */
function Https({ o }: { o: OverviewJson }) {
  if (!o.tls) {
    return (
      <p className="muted">
        Served over plain HTTP: start the daemon with <code>--tls auto</code> so that passwords and tokens do not cross
        the network in clear.
      </p>
    );
  }
  const until = o.tls.not_after ? (
    <>
      {' '}
      (certificate until <When iso={o.tls.not_after} />)
    </>
  ) : null;
  if (!o.tls.fingerprint)
    return (
      <p>
        HTTPS with{' '}
        {o.tls.mode === 'acme' ? 'a certificate from an ACME CA, renewed by the daemon' : 'your own certificate'}
        {until}.
      </p>
    );
  const url = o.lan_urls[0] ?? window.location.origin;
  const server = { url, caFile: CLIENT_CA_FILE };
  return (
    <>
      <h3>HTTPS with Boxyard's own CA{until}</h3>
      {o.tls.local_ca && <LocalCaNote ca={o.tls.local_ca} server={url} />}
      <TrustStep server={server} fingerprint={o.tls.fingerprint} what="vagrant, curl or an agent talk to it" />
      <CopyField label="Client setup" lines value={caFileLines(url, CLIENT_CA_FILE).join('\n')} />
      <p className="muted">
        The CA itself: <a href="/ca.pem">/ca.pem</a> (PEM), <a href="/ca.crt">/ca.crt</a> (for an operating system's
        certificate store). Where Boxyard is installed, <code>npx boxyard trust {url} --fingerprint …</code> writes a
        bundle of the system's CAs and this one.
      </p>
    </>
  );
}

const boxLink = (tag: string) => <Link to={`/boxes/${tag.split('/').map(encodeURIComponent).join('/')}`}>{tag}</Link>;

function What({ a }: { a: ActivityJson }) {
  if (a.kind === 'upload') {
    return (
      <>
        Uploaded {a.provider} {a.architecture} ({formatBytes(a.size)}) to {boxLink(a.target)} {a.version}
      </>
    );
  }
  if (a.kind === 'release')
    return (
      <>
        Released {boxLink(a.target)} {a.version}
      </>
    );
  return (
    <>
      Mirror job{' '}
      <Link to="/mirrors">
        {a.source} → {a.target}
      </Link>{' '}
      {a.state && <StatusBadge status={a.state} />}
      {a.message && <span className="muted"> {a.message}</span>}
    </>
  );
}

/**
 * React keys for the activity rows, which have no id: what each says, numbered when two say the same. A new row on
 * top leaves the others' keys as they were.
 */
function activityKeys(items: ActivityJson[]): string[] {
  const seen = new Map<string, number>();
  return items.map((a) => {
    const key = [a.kind, a.at, a.target, a.version, a.provider, a.architecture, a.source].join(' ');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return n === 0 ? key : `${key} #${n + 1}`;
  });
}

function Activity({ items }: { items: ActivityJson[] }) {
  const keys = activityKeys(items);
  return (
    <Section title="Recent activity">
      {items.length === 0 ? (
        <p className="muted">Nothing yet: uploads, releases and mirror jobs show here.</p>
      ) : (
        <CardTable label="Recent activity" columns={['When', 'What']}>
          {items.map((a, i) => (
            <tr key={keys[i]}>
              <td data-label="When">
                <When iso={a.at} />
              </td>
              <td data-label="What" className="with-links">
                <What a={a} />
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}

/**
 * The first page for a signed-in user: the getting-started checklist until it is done, storage, counts, the URL to give
 * colleagues, version, health, recent activity.
 */
export function OverviewPage() {
  const { api } = useSession();
  const q = useQuery({ queryKey: queryKeys.overview, queryFn: () => getOverview(api) });
  return (
    <>
      <div className="page-head">
        <h1>Overview</h1>
        <Link className="button" to="/mirrors/move">
          Move from HCP Vagrant
        </Link>
      </div>
      {q.isLoading ? <Loading what="the overview" /> : <ErrorNote error={q.error} />}
      {q.data && (
        <>
          <GettingStarted o={q.data} />
          <Storage o={q.data} />
          <OrganizationCounts o={q.data} />
          <Server o={q.data} />
          <Activity items={q.data.activity} />
        </>
      )}
    </>
  );
}
