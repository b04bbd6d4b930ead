// The identity provider's answer (`/console/auth/callback?code=…&state=…`, or `?error=…`) taken from the
// address at boot, before anything renders, and the address cleared at once: the code and state are in no
// URL after that (not in history, not in a bookmark). The callback page, loaded afterwards with the OIDC
// library, completes the sign-in from what was taken. Kept in memory only: a reload has nothing to redo.
import { CALLBACK_PATH } from './oidc-rules.ts';

let taken: string | null = null;

/** At boot: on the callback path, keeps the full address for the callback page and clears its query. */
export function takeSignInResponseFromLocation(base: string): void {
  const path = `${base}${CALLBACK_PATH}`;
  if (window.location.pathname.replace(/\/$/, '') !== path || window.location.search === '') return;
  taken = window.location.href;
  history.replaceState(history.state, '', path);
}

/** The provider's answer taken at boot, once; null when there is none (a reload, a visit by hand). */
export function takeSignInResponse(): string | null {
  const response = taken;
  taken = null;
  return response;
}
