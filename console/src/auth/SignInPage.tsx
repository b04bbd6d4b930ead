// Where a person without a session lands: why (expired, refused, signed out), how to get a sign-in link,
// and a field to paste a token into. After sign-in, the page they asked for.
import { type FormEvent, useState } from 'react';
import { Navigate, useNavigate } from 'react-router';
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
    default:
      return 'Sign in to continue.';
  }
}

export function SignInPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<string | null>(null);
  if (session) return <Navigate to={takeReturnTo() ?? '/'} replace />;
  const next = returnTo();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = String(new FormData(event.currentTarget).get('token') ?? '').trim();
    const refused = startSession(token);
    if (refused) setProblem(refused);
    else navigate(takeReturnTo() ?? '/', { replace: true });
  };

  return (
    <main id="main" className="sign-in">
      <h1>Sign in to the Apps Platform console</h1>
      <p className="reason">{reasonText(endReason())}</p>
      {next ? (
        <p>
          After signing in you return to <code>{next}</code>.
        </p>
      ) : null}
      <h2>With a development sign-in link</h2>
      <p>
        In the folder the platform runs from, run{' '}
        <code>npx platform console --tenant acme --role admin --open</code> and open the link it prints in
        this tab.
      </p>
      <h2>With a token</h2>
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
    </main>
  );
}
