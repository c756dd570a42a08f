import { Link, NavLink, Navigate, Outlet, Route, Routes, useLocation } from 'react-router-dom';
import { useSession } from './api/session';
import { LoginPage } from './pages/login-page';
import { BoxesPage } from './pages/boxes-page';
import { NewBoxPage } from './pages/new-box-page';
import { AddBoxFilePage } from './pages/add-box-file-page';
import { BoxPage } from './pages/box-page';
import { AgentPoolsPage } from './pages/agent-pools-page';
import { AgentPoolPage } from './pages/agent-pool-page';
import { OrganizationsPage } from './pages/organizations-page';
import { OrganizationPage } from './pages/organization-page';
import { SettingsPage } from './pages/settings-page';
import { MirrorsPage } from './pages/mirrors-page';
import { MovePage } from './pages/move-page';
import { OfflineBadge } from './components/mirror/offline-settings';
import { DesktopWelcome } from './components/desktop-welcome';
import { Notices } from './components/notices';
import { Home, OverviewPage } from './pages/overview-page';
import { signInPath } from './entry-paths';
import { pageTitle } from './page-titles';
import { useEffect } from 'react';

/**
 * The "Sign in" link, which comes back to this page afterwards; from the boxes list as a visitor first sees it (where
 * `/` sends them), to a signed-in user's first page instead: the overview, with its getting-started checklist.
 */
function SignInLink() {
  const location = useLocation();
  const front = location.pathname === '/boxes' && location.search === '';
  return (
    <Link className="sign-in" to={front ? '/login' : signInPath(location)}>
      Sign in
    </Link>
  );
}

function TopBar() {
  const session = useSession();
  return (
    <header className="topbar">
      <span className="brand">Boxyard</span>
      <nav aria-label="Main">
        <NavLink to="/boxes">Boxes</NavLink>
        {session.signedIn && (
          <>
            <NavLink to="/overview">Overview</NavLink>
            <NavLink to="/mirrors">Mirrors</NavLink>
            <NavLink to="/agent-pools">Agent pools</NavLink>
            <NavLink to="/organizations">Organizations</NavLink>
            <NavLink to="/settings">Settings</NavLink>
          </>
        )}
      </nav>
      {session.signedIn ? (
        <>
          <OfflineBadge />
          <span className="who">{session.username ?? ''}</span>
          <button type="button" className="link" onClick={() => void session.signOut()}>
            Sign out
          </button>
        </>
      ) : (
        <SignInLink />
      )}
    </header>
  );
}

/** Every page but sign-in: a skip link past the top bar, the bar, the page. */
function Shell() {
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to the page
      </a>
      <TopBar />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}

/** Managing anything asks for sign-in first, then comes back here. */
function RequireSignIn() {
  const { signedIn } = useSession();
  const location = useLocation();
  return signedIn ? <Outlet /> : <Navigate to={signInPath(location)} replace />;
}

/** The sign-in page; once signed in, where the user was going. */
function SignInRoute() {
  const { signedIn } = useSession();
  const location = useLocation();
  const next = new URLSearchParams(location.search).get('next');
  if (signedIn) return <Navigate to={next?.startsWith('/') && !next.startsWith('//') ? next : '/'} replace />;
  return <LoginPage />;
}

/** `/move`, the short address of Move from HCP Vagrant (under Mirrors, whose link it lights), keeping `?job=`. */
function ToMove() {
  const { search } = useLocation();
  return <Navigate to={`/mirrors/move${search}`} replace />;
}

/**
 * The public catalogue (the boxes list and box pages) for anyone; everything else for signed-in
 * users. Routes that need a session go inside RequireSignIn.
 */
export function App() {
  const { checking } = useSession();
  // Each page's title in the tab and the history (page-titles.ts).
  const { pathname } = useLocation();
  useEffect(() => {
    document.title = pageTitle(pathname);
  }, [pathname]);
  if (checking) return <p className="muted">Loading…</p>;
  return (
    <>
      {/* The desktop app's first run shows its generated password before anyone can sign in with it. */}
      <DesktopWelcome bridge={window.boxyard} />
      {/* Maintenance mode and a session the daemon ended, above every page (the sign-in page too). */}
      <Notices />
      <Routes>
        <Route path="/login" element={<SignInRoute />} />
        <Route element={<Shell />}>
          <Route path="/" element={<Home />} />
          <Route path="/boxes" element={<BoxesPage />} />
          <Route path="/boxes/:user/:name" element={<BoxPage />} />
          <Route element={<RequireSignIn />}>
            <Route path="/overview" element={<OverviewPage />} />
            <Route path="/boxes/new" element={<NewBoxPage />} />
            <Route path="/boxes/add" element={<AddBoxFilePage />} />
            <Route path="/mirrors" element={<MirrorsPage />} />
            <Route path="/mirrors/move" element={<MovePage />} />
            <Route path="/move" element={<ToMove />} />
            <Route path="/agent-pools" element={<AgentPoolsPage />} />
            <Route path="/agent-pools/:org" element={<AgentPoolsPage />} />
            <Route path="/agent-pools/:org/:poolId" element={<AgentPoolPage />} />
            <Route path="/organizations" element={<OrganizationsPage />} />
            <Route path="/organizations/:name" element={<OrganizationPage />} />
            <Route path="/settings" element={<SettingsPage part="account" />} />
            <Route path="/settings/administration" element={<SettingsPage part="administration" />} />
          </Route>
          <Route
            path="*"
            element={
              <p>
                Nothing here. <NavLink to="/boxes">Go to boxes</NavLink>.
              </p>
            }
          />
        </Route>
      </Routes>
    </>
  );
}
