/**
 * The app's frame: the sign-in form while signed out; signed in, the menu (made from pages.ts),
 * the current user, sign out, the live stream's state, and the page the URL names.
 */
import { lazy, Suspense, useMemo, useState } from 'react';
import { NavLink, Route, Routes } from 'react-router';
import { LiveEventsProvider, useStreamState } from './api/events.tsx';
import { useSession, useUser } from './api/session.tsx';
import { NotBuilt } from './components/not-built.tsx';
import { EmptyState, ErrorMessage, Loading } from './components/ui.tsx';
import { PAGES, type PageEntry } from './pages.ts';
import { SignIn } from './sign-in.tsx';

export function App() {
  const { user, error, retry } = useSession();
  if (user === undefined && error) {
    return (
      <main className="sign-in">
        <EmptyState title="The server cannot be reached">
          <ErrorMessage error={error} />
          <button type="button" onClick={retry}>
            Try again
          </button>
        </EmptyState>
      </main>
    );
  }
  if (user === undefined) return <Loading what="Opening the console…" />;
  if (user === null) return <SignIn />;
  return (
    <LiveEventsProvider>
      <Shell />
    </LiveEventsProvider>
  );
}

function StreamIndicator() {
  const state = useStreamState();
  const text = state === 'live' ? 'Live' : state === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span className={`stream stream-${state}`} role="status" title="Updates from the server's event stream">
      {text}
    </span>
  );
}

function Shell() {
  const user = useUser();
  const { signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const visible = PAGES.filter((p) => !p.adminOnly || user.is_admin);
  // One lazy component per built page, made once.
  const components = useMemo(() => new Map(PAGES.filter((p) => p.load).map((p) => [p.path, lazy(p.load as NonNullable<PageEntry['load']>)])), []);

  return (
    <div className="shell">
      <a href="#main" className="skip">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="menu" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <span className="brand">Campaign Dialer</span>
        <StreamIndicator />
        <span className="who" data-testid="current-user">
          {user.username}
          {user.is_admin ? ' (admin)' : ''}
        </span>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav id="menu" aria-label="Main" className={menuOpen ? 'open' : ''} onClick={() => setMenuOpen(false)}>
        <ul>
          {visible.map((p) => (
            <li key={p.path}>
              <NavLink to={p.path} end={p.path === '/'}>
                {p.label}
                {!p.load && <span className="soon">not built yet</span>}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Routes>
            {visible.map((p) => {
              const Page = components.get(p.path);
              const element = Page ? <Page /> : <NotBuilt page={p} />;
              return <Route key={p.path} path={p.path === '/' ? '/' : `${p.path}/*`} element={element} />;
            })}
            <Route
              path="*"
              element={
                <EmptyState title="No such page">
                  <p>Nothing lives at this address. Choose a page in the menu.</p>
                </EmptyState>
              }
            />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}

