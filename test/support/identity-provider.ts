// A real OpenID provider for the console's sign-in tests: panva's oidc-provider (certified), run in the
// test's process on 127.0.0.1 at a free port, with its development login and consent pages (any login;
// the password is not checked). It listens first, so the platform can be started with its issuer; the
// console's client is registered once the platform's address (the redirect URI) is known.
//
// Its access tokens are JWTs for the platform's API (a resource indicator whose audience is AUTH_AUDIENCE)
// carrying the platform's claims (tenant, roles, name, kind) for each account; an account may have a
// short lifetime to test a session's expiry.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface Account {
  /** Claims the access token carries beside sub (the login): tenant, roles, name, kind. */
  claims: Record<string, unknown>;
  /** Seconds the access token lives; 600 when unset. */
  accessTokenTtl?: number;
}

export interface ConsoleClient {
  clientId: string;
  redirectUri: string;
  /** The API's resource indicator and the access token's audience (AUTH_AUDIENCE). */
  audience: string;
  /** The scope the API's resource server grants (asked for through CONSOLE_OIDC_SCOPE). */
  apiScope: string;
  /** By login. */
  accounts: Record<string, Account>;
}

export interface IdentityProvider {
  issuer: string;
  jwksUrl: string;
  register(client: ConsoleClient): Promise<void>;
  stop(): Promise<void>;
}

export async function startIdentityProvider(): Promise<IdentityProvider> {
  let handle: http.RequestListener | null = null;
  const server = http.createServer((request, response) => {
    if (handle) return handle(request, response);
    response.statusCode = 503;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    register: async (client) => {
      handle = (await providerFor(issuer, client)).callback();
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function providerFor(issuer: string, client: ConsoleClient): Promise<Provider> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: 'test-es256', alg: 'ES256', use: 'sig' };
  const accountOf = (id: string | undefined) => (id === undefined ? undefined : client.accounts[id]);
  return new Provider(issuer, {
    jwks: { keys: [key] },
    cookies: { keys: ['identity-provider-test-cookie-key'] },
    clients: [
      {
        client_id: client.clientId,
        token_endpoint_auth_method: 'none',
        redirect_uris: [client.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: 'ES256',
      },
    ],
    // Public clients must use PKCE (S256 is the only method oidc-provider takes).
    pkce: { required: () => true },
    clientBasedCORS: (_ctx, origin, registered) =>
      registered.redirectUris?.some((uri) => new URL(uri).origin === origin) ?? false,
    findAccount: (_ctx, id) =>
      accountOf(id) ? { accountId: id, claims: () => ({ sub: id, ...accountOf(id)?.claims }) } : undefined,
    extraTokenClaims: (_ctx, token) =>
      token.kind === 'AccessToken' ? accountOf(token.accountId)?.claims : undefined,
    ttl: { AccessToken: (_ctx, token) => accountOf(token.accountId)?.accessTokenTtl ?? 600 },
    features: {
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => client.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== client.audience) throw new Error(`no resource server ${indicator}`);
          return {
            scope: client.apiScope,
            audience: client.audience,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
    },
  });
}
