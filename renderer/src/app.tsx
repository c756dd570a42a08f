import { NavLink, Navigate, Route, Routes } from 'react-router-dom';
import { useSession } from './api/session';
import { LoginPage } from './pages/login-page';
import { BoxesPage } from './pages/boxes-page';
import { NewBoxPage } from './pages/new-box-page';
import { BoxPage } from './pages/box-page';
import { AgentPoolsPage } from './pages/agent-pools-page';
import { AgentPoolPage } from './pages/agent-pool-page';
import { OrganizationsPage } from './pages/organizations-page';
import { OrganizationPage } from './pages/organization-page';
import { SettingsPage } from './pages/settings-page';
import { MirrorsPage } from './pages/mirrors-page';
import { OfflineBadge } from './components/mirror/offline-settings';
import { DesktopWelcome } from './components/desktop-welcome';

function TopBar() {
  const session = useSession();
  return (
    <header className="topbar">
      <span className="brand">Boxyard</span>
      <nav>
        <NavLink to="/boxes">Boxes</NavLink>
        <NavLink to="/mirrors">Mirrors</NavLink>
        <NavLink to="/agent-pools">Agent pools</NavLink>
        <NavLink to="/organizations">Organizations</NavLink>
        <NavLink to="/settings">Settings</NavLink>
      </nav>
      <OfflineBadge />
      <span className="who">{session.username ?? ''}</span>
      <button type="button" className="link" onClick={() => void session.signOut()}>Sign out</button>
    </header>
  );
}

export function App() {
  const { checking, signedIn } = useSession();
  if (checking) return <p className="muted">Loading…</p>;
  // The desktop app's first run shows its generated password before anyone can sign in with it.
  const welcome = <DesktopWelcome bridge={window.boxyard} />;
  if (!signedIn) return <>{welcome}<LoginPage /></>;
  return (
    <>
      {welcome}
      <TopBar />
      <main>
        <Routes>
          <Route path="/" element={<Navigate to="/boxes" replace />} />
          <Route path="/boxes" element={<BoxesPage />} />
          <Route path="/boxes/new" element={<NewBoxPage />} />
          <Route path="/boxes/:user/:name" element={<BoxPage />} />
          <Route path="/mirrors" element={<MirrorsPage />} />
          <Route path="/agent-pools" element={<AgentPoolsPage />} />
          <Route path="/agent-pools/:org" element={<AgentPoolsPage />} />
          <Route path="/agent-pools/:org/:poolId" element={<AgentPoolPage />} />
          <Route path="/organizations" element={<OrganizationsPage />} />
          <Route path="/organizations/:name" element={<OrganizationPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="*" element={<p>Nothing here. <NavLink to="/boxes">Go to boxes</NavLink>.</p>} />
        </Routes>
      </main>
    </>
  );
}
