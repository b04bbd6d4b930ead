// Every signed-in page: the principal (tenant, name, role) with sign-out, the sections, the network
// banner, then the page. Without a session the person is sent to sign in, and comes back here after.
import { useEffect } from 'react';
import { Link, Navigate, Outlet, useLocation } from 'react-router';
import { api } from '../api/client.ts';
import { useApi } from '../api/query.ts';
import { endSession, rememberReturnTo, type Session, useSession } from '../auth/session.ts';
import { Navigation } from './Navigation.tsx';
import { NetworkBanner } from './NetworkBanner.tsx';

export function Layout() {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    rememberReturnTo(`${location.pathname}${location.search}`);
    return <Navigate to="/sign-in" replace />;
  }
  return <SignedIn session={session} />;
}

function SignedIn({ session }: { session: Session }) {
  useEndAtExpiry(session);
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to the page
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Apps Platform
        </Link>
        <Principal session={session} />
      </header>
      <Navigation />
      <main id="main" tabIndex={-1}>
        <NetworkBanner />
        <Outlet />
      </main>
    </div>
  );
}

function Principal({ session }: { session: Session }) {
  const tenant = useApi(['tenant'], (signal) => api.GET('/tenants/me', { signal }), {
    refetchInterval: false,
  });
  const { principal } = session;
  return (
    <div className="principal">
      <span>
        <span className="visually-hidden">Tenant: </span>
        <strong>{tenant.data?.name ?? '…'}</strong>
      </span>
      <span>{principal.name}</span>
      <span className="role">{principal.roles.join(', ') || principal.kind}</span>
      <button type="button" className="secondary" onClick={() => endSession({ kind: 'signed-out' })}>
        Sign out
      </button>
    </div>
  );
}

/** Ends the session when its token expires, so the sign-in page says so rather than a refused call. */
function useEndAtExpiry({ principal }: Session): void {
  useEffect(() => {
    const at = principal.expiresAt;
    if (at === null) return;
    // setTimeout takes at most 2^31-1 ms; a longer token is checked again at each render meanwhile.
    const timer = setTimeout(
      () => endSession({ kind: 'expired', at }),
      Math.min(at - Date.now(), 2 ** 31 - 1),
    );
    return () => clearTimeout(timer);
  }, [principal.expiresAt]);
}
