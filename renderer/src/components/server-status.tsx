import { useQuery } from '@tanstack/react-query';
import { getOverview } from '../api/overview';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';
import { ErrorNote, Loading, Section } from './ui';
import { When } from './relative-time';

const SOURCE: Record<'auto' | 'files' | 'acme', string> = {
  auto: "Boxyard's own CA (--tls auto)",
  files: 'your own certificate (--tls-cert)',
  acme: 'an ACME CA, renewed by the daemon (--tls acme)',
};

/**
 * Where the server listens and how it serves HTTPS, read-only: they are set where the daemon starts
 * (docs/https.md, docs/configuration.md), and shown here so an administrator sees them without the command line.
 */
export function ServerStatus() {
  const { api } = useSession();
  const overview = useQuery({ queryKey: queryKeys.overview, queryFn: () => getOverview(api) });
  if (overview.isLoading) return <Loading what="server status" />;
  if (!overview.data) return <ErrorNote error={overview.error} />;
  const { lan_urls: urls, tls } = overview.data;
  return (
    <Section title="LAN and HTTPS">
      <dl className="facts" aria-label="LAN and HTTPS">
        <dt>Reached at</dt>
        <dd>{urls.length > 0 ? urls.join(', ') : 'this machine only (it listens on a loopback address)'}</dd>
        <dt>HTTPS</dt>
        <dd>{tls ? SOURCE[tls.mode] : 'off: plain HTTP (start the daemon with --tls auto to turn it on)'}</dd>
        {tls?.not_after && (
          <>
            <dt>Certificate ends</dt>
            <dd>
              <When iso={tls.not_after} />
            </dd>
          </>
        )}
        {tls?.fingerprint && (
          <>
            <dt>CA fingerprint (SHA-256)</dt>
            <dd className="mono">{tls.fingerprint}</dd>
          </>
        )}
      </dl>
      <p className="muted">These are set where the daemon starts (its flags or environment), not here.</p>
    </Section>
  );
}
