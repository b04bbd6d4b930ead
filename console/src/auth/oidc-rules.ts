// The OpenID Connect sign-in's pure rules: what /console/config.json says, where the provider sends the
// person back, and a failed sign-in as a sentence for the sign-in page. Pure (the root's tests read it).

/** The identity provider's sign-in as the api's /console/config.json describes it (src/console/routes.ts). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  scope: string;
}

export interface ConsoleSettings {
  /** Null: no identity provider is configured; the development sign-in is the way in. */
  oidc: OidcSettings | null;
}

/** The console's path the identity provider redirects back to (the router's `/auth/callback`). */
export const CALLBACK_PATH = '/auth/callback';

/** The redirect URI registered at the identity provider for the console at `origin` under `base`. */
export const redirectUriOf = (origin: string, base: string) => `${origin}${base}${CALLBACK_PATH}`;

const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The settings in the JSON the api answered, or null when it is not what the api sends. */
export function readConsoleSettings(json: unknown): ConsoleSettings | null {
  if (json === null || typeof json !== 'object' || !('oidc' in json)) return null;
  const { oidc } = json as { oidc: unknown };
  if (oidc === null) return { oidc: null };
  if (typeof oidc !== 'object') return null;
  const { issuer, clientId, scope } = oidc as Record<string, unknown>;
  return isText(issuer) && isText(clientId) && isText(scope) ? { oidc: { issuer, clientId, scope } } : null;
}

/** What a failed sign-in threw: the provider's OAuth error (`error`, `error_description`) or a plain error. */
export interface SignInError {
  error?: unknown;
  error_description?: unknown;
  message?: unknown;
}

const sentence = (text: string) => text.trim().replace(/[.\s]+$/, '');

/** A failed sign-in as a sentence the sign-in page shows. */
export function signInFailureText(thrown: SignInError | null | undefined): string {
  const error = isText(thrown?.error) ? thrown.error : null;
  const description = isText(thrown?.error_description) ? sentence(thrown.error_description) : null;
  if (error === 'access_denied') {
    return `Your identity provider did not sign you in: ${description ?? 'access was denied'}.`;
  }
  if (error !== null) {
    return `Your identity provider refused the sign-in (${error}${description ? `: ${description}` : ''}).`;
  }
  const message = isText(thrown?.message) ? thrown.message : '';
  if (/no matching state|no state in response/i.test(message)) {
    return 'This sign-in was not started in this tab, or has already been used. Sign in again.';
  }
  if (/failed to fetch|networkerror|load failed/i.test(message)) {
    return 'Your identity provider could not be reached. Check your connection and sign in again.';
  }
  return `The sign-in did not complete${message ? `: ${sentence(message)}` : ''}. Sign in again.`;
}
