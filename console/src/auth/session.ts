// The signed-in session of this tab: the token in sessionStorage (this tab only, gone when it closes). One
// session, two ways in: a development sign-in link's fragment (`#token=…`: never sent to a server, cleared
// at once, so no URL holds the token after sign-in), or the identity provider's access token (oidc.ts). Why a session ended (expired, refused by the platform,
// signed out) and the page to return to are kept too, for the sign-in page.
import { useSyncExternalStore } from 'react';
import { hasExpired, type Principal, principalOf } from './claims.ts';
import { tokenFromFragment } from './fragment.ts';

const TOKEN_KEY = 'console.token';
const ENDED_KEY = 'console.ended';
const RETURN_KEY = 'console.returnTo';

export type EndReason =
  | { kind: 'expired'; at: number }
  | { kind: 'refused'; message: string }
  | { kind: 'signed-out' }
  | { kind: 'invalid' }
  /** A sign-in through the identity provider that did not complete: `message` is the sentence to show. */
  | { kind: 'not-signed-in'; message: string };

export interface Session {
  token: string;
  principal: Principal;
}

const listeners = new Set<() => void>();
let snapshot: { token: string | null; session: Session | null } = { token: null, session: null };

function changed(): void {
  for (const listener of listeners) listener();
}

/**
 * At boot: a sign-in link's token is kept and the fragment removed from the address at once. A link that
 * lands on Home after a deep link sent the person to sign in returns to that page instead.
 */
export function takeTokenFromLocation(base: string): void {
  const token = tokenFromFragment(window.location.hash);
  if (window.location.hash) {
    history.replaceState(history.state, '', window.location.pathname + window.location.search);
  }
  if (token === null) return;
  startSession(token);
  const returnTo = takeReturnTo();
  if (returnTo && window.location.pathname.replace(/\/$/, '') === base) {
    history.replaceState(history.state, '', `${base}${returnTo}`);
  }
}

/**
 * Keeps `token` as this tab's session; the problem when it is not a platform token or has expired (an
 * expired one is recorded as the reason the sign-in page gives).
 */
export function startSession(token: string): string | null {
  const principal = principalOf(token);
  if (!principal) return 'This is not a token of the platform.';
  if (principal.expiresAt !== null && hasExpired(principal, Date.now())) {
    sessionStorage.setItem(
      ENDED_KEY,
      JSON.stringify({ kind: 'expired', at: principal.expiresAt } satisfies EndReason),
    );
    changed();
    return `This token expired at ${new Date(principal.expiresAt).toLocaleString()}.`;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.removeItem(ENDED_KEY);
  changed();
  return null;
}

/** Ends the session (the token forgotten) and records why for the sign-in page. */
export function endSession(reason: EndReason): void {
  if (sessionStorage.getItem(TOKEN_KEY) === null) return;
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.setItem(ENDED_KEY, JSON.stringify(reason));
  changed();
}

/** Records why a sign-in through the identity provider did not complete, for the sign-in page. */
export function recordSignInFailure(message: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.setItem(ENDED_KEY, JSON.stringify({ kind: 'not-signed-in', message } satisfies EndReason));
  changed();
}

/**
 * The current session, or null. A token that has expired (or is no platform token) is forgotten here with
 * its reason recorded, without telling listeners: this runs while React reads the session.
 */
export function currentSession(now = Date.now()): Session | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const principal = token ? principalOf(token) : null;
  if (token && (!principal || hasExpired(principal, now))) {
    sessionStorage.removeItem(TOKEN_KEY);
    const reason: EndReason = principal
      ? { kind: 'expired', at: principal.expiresAt ?? now }
      : { kind: 'invalid' };
    sessionStorage.setItem(ENDED_KEY, JSON.stringify(reason));
    return currentSession(now);
  }
  if (token !== snapshot.token) {
    snapshot = { token, session: token && principal ? { token, principal } : null };
  }
  return snapshot.session;
}

/** The token for an API call, or null when signed out. */
export const sessionToken = (): string | null => currentSession()?.token ?? null;

/** Why the last session ended, or null. */
export function endReason(): EndReason | null {
  try {
    return JSON.parse(sessionStorage.getItem(ENDED_KEY) ?? 'null') as EndReason | null;
  } catch {
    return null;
  }
}

/** Remembers the page a signed-out visit asked for (a path of the console), to return to after sign-in. */
export function rememberReturnTo(path: string): void {
  if (path.startsWith('/') && !path.startsWith('//') && !path.startsWith('/sign-in')) {
    sessionStorage.setItem(RETURN_KEY, path);
  }
}

export const returnTo = (): string | null => sessionStorage.getItem(RETURN_KEY);

/** The page to return to, forgotten once taken. */
export function takeReturnTo(): string | null {
  const path = returnTo();
  sessionStorage.removeItem(RETURN_KEY);
  return path;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = () => listener();
  window.addEventListener('storage', onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('storage', onStorage);
  };
}

/** The session as React state: a sign-out or a refused token re-renders whoever reads it. */
export function useSession(): Session | null {
  return useSyncExternalStore(subscribe, () => currentSession());
}
