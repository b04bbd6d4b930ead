// Where the identity provider sends the person back (`/console/auth/callback`, outside the shell). The
// provider's answer was taken from the address at boot (callback.ts); here the library checks its state
// and exchanges the code with the PKCE verifier, the access token becomes this tab's session, and the
// person lands on the page they asked for. A refusal (a cancelled consent, a wrong password, an unknown
// state) goes to the sign-in page, which says why in a sentence.
import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { Loading } from '../components/Loading.tsx';
import { takeSignInResponse } from './callback.ts';
import { useConsoleSettings } from './console-settings.ts';
import { finishProviderSignIn } from './oidc.ts';
import { type OidcSettings, signInFailureText } from './oidc-rules.ts';
import { currentSession, endReason, recordSignInFailure, startSession, takeReturnTo } from './session.ts';

/** Where the sign-in ends: the page to land on, or the sign-in page with the failure recorded. */
async function finish(oidc: OidcSettings | null, response: string | null): Promise<string> {
  const failed = (message: string) => {
    recordSignInFailure(message);
    return '/sign-in';
  };
  // Opened by hand or reloaded: nothing to complete; a signed-in person simply goes on.
  if (!response && currentSession()) return '/';
  if (!oidc) return failed('This platform signs nobody in through an identity provider.');
  if (!response)
    return failed('The sign-in did not complete: there was no answer from your identity provider.');
  try {
    const refused = startSession(await finishProviderSignIn(oidc, response));
    if (refused === null) return takeReturnTo() ?? '/';
    // A token that expired on the way is recorded as an expired session, which the sign-in page explains.
    if (endReason()?.kind === 'expired') return '/sign-in';
    return failed(`Your identity provider signed you in, but the console cannot use its token: ${refused}`);
  } catch (error) {
    return failed(signInFailureText(error as Error));
  }
}

/** The answer is taken once per page load, so a second effect run (StrictMode) waits on the same end. */
let finishing: Promise<string> | null = null;

export default function CallbackPage() {
  const navigate = useNavigate();
  const settings = useConsoleSettings();
  const ready = settings.isSuccess || settings.isError;
  const oidc = settings.data?.oidc ?? null;
  useEffect(() => {
    if (!ready) return;
    finishing ??= finish(oidc, takeSignInResponse());
    let current = true;
    finishing.then((to) => {
      if (current) navigate(to, { replace: true });
    });
    return () => {
      current = false;
    };
  }, [ready, oidc, navigate]);
  return (
    <main id="main" className="sign-in">
      <h1>Signing you in</h1>
      <Loading what="your session" />
    </main>
  );
}
