// Where a person without a session lands: why (expired, refused, signed out, a sign-in that did not
// complete), then the way in this deployment offers: its identity provider (OpenID Connect) when
// configured, else the development sign-in link; a token can be pasted either way. After sign-in, the page
// they asked for. Loaded on first use, with the OIDC library (the first bundle carries neither).
import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
import { Loading } from '../components/Loading.tsx';
import { useConsoleSettings } from './console-settings.ts';
import { startProviderSignIn } from './oidc.ts';
import { type OidcSettings, signInFailureText } from './oidc-rules.ts';
import { type EndReason, endReason, returnTo, startSession, takeReturnTo, useSession } from './session.ts';

export function reasonText(reason: EndReason | null): string {
  switch (reason?.kind) {
    case 'expired':
      return `Your session expired at ${new Date(reason.at).toLocaleString()}. Sign in again to continue.`;
    case 'refused':
      return `The platform ended your session: ${reason.message.replace(/\.$/, '')}. Sign in again to continue.`;
    case 'signed-out':
      return 'You signed out.';
    case 'invalid':
      return 'The token of this session was not one the console can read. Sign in again.';
    case 'not-signed-in':
      return reason.message;
    default:
      return 'Sign in to continue.';
  }
}

export default function SignInPage() {
  const session = useSession();
  const settings = useConsoleSettings();
  if (session) return <Navigate to={takeReturnTo() ?? '/'} replace />;
  const next = returnTo();
  const reason = endReason();

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the Apps Platform console</h1>
      {reason?.kind === 'not-signed-in' ? (
        <p className="failure" role="alert">
          {reasonText(reason)}
        </p>
      ) : (
        <p className="reason">{reasonText(reason)}</p>
      )}
      {next ? (
        <p>
          After signing in you return to <code>{next}</code>.
        </p>
      ) : null}
      {settings.isPending ? (
        <Loading what="the ways to sign in" />
      ) : settings.data?.oidc ? (
        <ProviderSignIn oidc={settings.data.oidc} />
      ) : (
        <DevelopmentSignIn />
      )}
      <TokenSignIn />
    </main>
  );
}

function ProviderSignIn({ oidc }: { oidc: OidcSettings }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [leaving, setLeaving] = useState(false);
  const signIn = () => {
    setProblem(null);
    setLeaving(true);
    startProviderSignIn(oidc).catch((error: unknown) => {
      setLeaving(false);
      setProblem(signInFailureText(error as Error));
    });
  };
  return (
    <section aria-labelledby="provider-sign-in">
      <h2 id="provider-sign-in">With your identity provider</h2>
      <p>
        Your organisation signs you in at <code>{new URL(oidc.issuer).host}</code>.
      </p>
      <button type="button" onClick={signIn} disabled={leaving}>
        Sign in with your identity provider
      </button>
      {problem ? (
        <p className="failure" role="alert">
          {problem}
        </p>
      ) : null}
    </section>
  );
}

function DevelopmentSignIn() {
  return (
    <section aria-labelledby="development-sign-in">
      <h2 id="development-sign-in">With a development sign-in link</h2>
      <p>
        This platform has no identity provider configured for the console. In the folder the platform runs
        from, run <code>npx platform console --tenant acme --role admin --open</code> and open the link it
        prints in this tab.
      </p>
    </section>
  );
}

function TokenSignIn() {
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = String(new FormData(event.currentTarget).get('token') ?? '').trim();
    const refused = startSession(token);
    if (refused) setProblem(refused);
    else navigate(takeReturnTo() ?? '/', { replace: true });
  };
  return (
    <section aria-labelledby="token-sign-in">
      <h2 id="token-sign-in">With a token</h2>
      <form onSubmit={submit}>
        <label htmlFor="token">Token</label>
        <input id="token" name="token" type="password" autoComplete="off" required />
        {problem ? (
          <p className="failure" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
