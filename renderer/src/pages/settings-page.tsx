import { useQuery } from '@tanstack/react-query';
import { getSettings, setMaintenance } from '../api/accounts';
import { useSession } from '../api/session';
import { ApiTokens } from '../components/tokens/api-tokens';
import { DesktopSettings } from '../components/desktop-settings';
import { OfflineSettings } from '../components/mirror/offline-settings';
import { TwoFactor } from '../components/two-factor';
import { Users } from '../components/users';
import { ErrorNote, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';

function Maintenance() {
  const { api, admin } = useSession();
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => getSettings(api) });
  const toggle = useAction((on: boolean) => setMaintenance(api, on), [queryKeys.settings]);
  const on = settings.data?.maintenance ?? false;
  return (
    <Section title="Maintenance mode">
      <ErrorNote error={settings.error ?? toggle.error} />
      <p>While it is on, the APIs answer 503 to every client; the web UI stays reachable so an administrator can switch it off here. It is <strong>{on ? 'on' : 'off'}</strong>.</p>
      {admin
        ? <button type="button" className={on ? 'primary' : 'danger'} disabled={!settings.data || toggle.isPending} onClick={() => toggle.mutate(!on)}>{on ? 'Switch maintenance off' : 'Switch maintenance on'}</button>
        : <p className="muted">Only administrators can switch it.</p>}
    </Section>
  );
}

export function SettingsPage() {
  const bridge = window.boxyard;
  const { admin } = useSession();
  return (
    <>
      <div className="page-head"><h1>Settings</h1></div>
      {bridge && <DesktopSettings bridge={bridge} />}
      <OfflineSettings />
      <ApiTokens />
      <TwoFactor />
      {admin && <Users />}
      <Maintenance />
    </>
  );
}
