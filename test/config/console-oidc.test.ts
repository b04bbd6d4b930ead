// CONSOLE_OIDC_CLIENT_ID and CONSOLE_OIDC_SCOPE (docs/console.md "Signing in"): the console's OpenID Connect
// sign-in is on only with the identity provider the api verifies tokens of, and says what is missing.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

const PROVIDER = {
  AUTH_ISSUER: 'https://login.example.com/realms/acme',
  AUTH_JWKS_URL: 'https://login.example.com/realms/acme/certs',
  AUTH_AUDIENCE: 'https://platform.example.com',
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv/platform');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  return [];
}

describe('the console’s OpenID Connect settings', () => {
  it.each([
    ['off without a client id', {}, null],
    ['off without a client id, whatever the provider', PROVIDER, null],
    [
      'on with the client id and the provider, asking for openid by default',
      { ...PROVIDER, CONSOLE_OIDC_CLIENT_ID: 'platform-console' },
      { issuer: PROVIDER.AUTH_ISSUER, clientId: 'platform-console', scope: 'openid' },
    ],
    [
      'with the scopes asked for',
      { ...PROVIDER, CONSOLE_OIDC_CLIENT_ID: 'console', CONSOLE_OIDC_SCOPE: 'openid platform:api' },
      { issuer: PROVIDER.AUTH_ISSUER, clientId: 'console', scope: 'openid platform:api' },
    ],
  ])('%s', (_, env, expected) => {
    expect(loadConfig(env, '/srv/platform').consoleOidc).toEqual(expected);
  });

  it.each([
    [
      'a client id without the provider the api verifies tokens of',
      { CONSOLE_OIDC_CLIENT_ID: 'console', AUTH_ISSUER: PROVIDER.AUTH_ISSUER },
      'CONSOLE_OIDC_CLIENT_ID: needs AUTH_JWKS_URL, AUTH_AUDIENCE (the api verifies the identity provider’s tokens)',
    ],
    [
      'an issuer that is no web address (no discovery document to read)',
      { ...PROVIDER, AUTH_ISSUER: 'urn:acme:idp', CONSOLE_OIDC_CLIENT_ID: 'console' },
      'CONSOLE_OIDC_CLIENT_ID: needs AUTH_ISSUER to be an http:// or https:// URL',
    ],
    [
      'scopes that are not a space-separated list',
      { ...PROVIDER, CONSOLE_OIDC_CLIENT_ID: 'console', CONSOLE_OIDC_SCOPE: 'openid  "platform"' },
      'CONSOLE_OIDC_SCOPE: expected scopes separated by single spaces',
    ],
  ])('refuses %s', (_, env, problem) => {
    expect(problems(env)).toEqual([problem]);
  });
});
