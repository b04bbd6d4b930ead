// The console's production sign-in (docs/console.md "Signing in"): OpenID Connect authorization code with
// PKCE against AUTH_ISSUER, as the client CONSOLE_OIDC_CLIENT_ID, asking for CONSOLE_OIDC_SCOPE. Off when
// the client id is unset. The api verifies the tokens the provider issues (AUTH_JWKS_URL, AUTH_AUDIENCE),
// so the client id without them is a mistake in the settings, not a sign-in that would fail later.
import type { Reader } from './reader.ts';

export interface ConsoleOidcSettings {
  /** AUTH_ISSUER: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** CONSOLE_OIDC_CLIENT_ID: the console's client at the identity provider (public, PKCE). */
  clientId: string;
  /** CONSOLE_OIDC_SCOPE: space-separated scopes asked for; `openid` by default. */
  scope: string;
}

export const DEFAULT_CONSOLE_OIDC_SCOPE = 'openid';

/** RFC 6749 §3.3: scope tokens of printable ASCII without space, `"` or `\`, separated by single spaces. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

export function readConsoleOidc(read: Reader): ConsoleOidcSettings | null {
  const clientId = read.text('CONSOLE_OIDC_CLIENT_ID');
  const scope = read.text('CONSOLE_OIDC_SCOPE') ?? DEFAULT_CONSOLE_OIDC_SCOPE;
  if (!SCOPE.test(scope)) {
    read.problems.push('CONSOLE_OIDC_SCOPE: expected scopes separated by single spaces');
  }
  if (clientId === null) return null;
  const issuer = read.text('AUTH_ISSUER');
  const missing = ['AUTH_ISSUER', 'AUTH_JWKS_URL', 'AUTH_AUDIENCE'].filter(
    (name) => read.text(name) === null,
  );
  if (missing.length > 0) {
    read.problems.push(
      `CONSOLE_OIDC_CLIENT_ID: needs ${missing.join(', ')} (the api verifies the identity provider’s tokens)`,
    );
    return null;
  }
  if (!isHttpUrl(issuer)) {
    read.problems.push('CONSOLE_OIDC_CLIENT_ID: needs AUTH_ISSUER to be an http:// or https:// URL');
    return null;
  }
  return { issuer: issuer as string, clientId, scope };
}

function isHttpUrl(text: string | null): boolean {
  const protocol = text === null ? null : URL.parse(text)?.protocol;
  return protocol === 'http:' || protocol === 'https:';
}
