import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { isApiError } from '../api/client';
import { getSettings } from '../api/accounts';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';

const refused = (c: QueryClient) =>
  c
    .getQueryCache()
    .getAll()
    .some((q) => isApiError(q.state.error, 'maintenance'));

/**
 * Whether any query on the page was refused with the `maintenance` code (what a visitor who is not signed in can
 * learn).
 */
function useMaintenanceRefusals(): boolean {
  const qc = useQueryClient();
  const [seen, setSeen] = useState(() => refused(qc));
  useEffect(() => qc.getQueryCache().subscribe(() => setSeen(refused(qc))), [qc]);
  return seen;
}

/**
 * Maintenance mode, for everyone: signed in, from the settings (which stay readable in maintenance
 * mode); otherwise from the daemon's refusals. Administrators get a link to the switch.
 */
function MaintenanceBanner() {
  const { api, signedIn, admin } = useSession();
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => getSettings(api), enabled: signedIn });
  const refusals = useMaintenanceRefusals();
  if (!(signedIn ? settings.data?.maintenance : refusals)) return null;
  return (
    <p className="banner banner-warning" role="status">
      <strong>Maintenance mode.</strong> Boxyard is refusing API requests (vagrant, Terraform, agents, and most of these
      pages) until an administrator switches it off.
      {admin && (
        <>
          {' '}
          <Link to="/settings/administration#maintenance">Switch it off in Settings → Administration</Link>.
        </>
      )}
    </p>
  );
}

/** After the daemon ended the session (revoked from another tab or device, expired, password changed elsewhere). */
function SessionEnded() {
  const { ended, signedIn } = useSession();
  if (!ended || signedIn) return null;
  return (
    <p className="banner" role="alert">
      Your session has ended — sign in again. <Link to="/login">Sign in</Link>
    </p>
  );
}

/** The notices above every page, signed in or not. */
export function Notices() {
  return (
    <>
      <SessionEnded />
      <MaintenanceBanner />
    </>
  );
}
