import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getSettings, setMaintenance } from '../api/accounts';
import { useSession } from '../api/session';
import { ApiTokens } from '../components/tokens/api-tokens';
import { DesktopSettings } from '../components/desktop-settings';
import { OfflineSettings } from '../components/mirror/offline-settings';
import { AllowedHosts } from '../components/mirror/allowed-hosts';
import { TwoFactor } from '../components/two-factor';
import { ChangePassword } from '../components/change-password';
import { Users } from '../components/users';
import { ErrorNote, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';
import { ServerStatus } from '../components/server-status';
import { NavLink } from 'react-router-dom';

function Maintenance() {
  const { api, admin } = useSession();
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => getSettings(api) });
  // Every page's answers change with it (refused in maintenance, served after): ask again for all of them.
  const toggle = useAction(
    (on: boolean) => setMaintenance(api, on),
    [queryKeys.settings],
    () => void qc.invalidateQueries(),
  );
  const on = settings.data?.maintenance ?? false;
  return (
    <Section title="Maintenance mode" id="maintenance">
      <ErrorNote error={settings.error ?? toggle.error} />
      <p>
        While it is on, the APIs answer 503 to every client (vagrant, Terraform, agents) and the web UI shows a banner;
        administrators keep the web UI, so they can switch it off here. It is <strong>{on ? 'on' : 'off'}</strong>.
      </p>
      {admin ? (
        <button
          type="button"
          className={on ? 'primary' : 'danger'}
          disabled={!settings.data || toggle.isPending}
          onClick={() => toggle.mutate(!on)}
        >
          {on ? 'Switch maintenance off' : 'Switch maintenance on'}
        </button>
      ) : (
        <p className="muted">Only administrators can switch it.</p>
      )}
    </Section>
  );
}

/** The two parts of Settings: one's own account, and (administrators) the server's. */
export type SettingsPart = 'account' | 'administration';

function SettingsTabs() {
  const { admin } = useSession();
  if (!admin) return null;
  return (
    <nav className="tabs" aria-label="Settings">
      <NavLink to="/settings" end>
        Your account
      </NavLink>
      <NavLink to="/settings/administration">Administration</NavLink>
    </nav>
  );
}

/**
 * Settings in two parts, as Gitea has them: "Your account" (tokens, password, two-factor) for everyone, and
 * "Administration" (users, the server's settings, its LAN and HTTPS status) for administrators.
 */
export function SettingsPage({ part }: { part: SettingsPart }) {
  const bridge = window.boxyard;
  const { admin } = useSession();
  return (
    <>
      <div className="page-head">
        <h1>{part === 'account' ? 'Your account' : 'Administration'}</h1>
      </div>
      <SettingsTabs />
      {part === 'account' ? (
        <>
          <ApiTokens />
          <ChangePassword />
          <TwoFactor />
        </>
      ) : admin ? (
        <>
          <Users />
          {bridge && <DesktopSettings bridge={bridge} />}
          <ServerStatus />
          <OfflineSettings />
          <AllowedHosts />
          <Maintenance />
        </>
      ) : (
        <p className="muted">Only administrators see the server's settings.</p>
      )}
    </>
  );
}
