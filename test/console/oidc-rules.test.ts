// The console's OpenID Connect sign-in rules (console/src/auth/oidc-rules.ts): what /console/config.json
// may say, the redirect URI, and a failed sign-in as the sentence the sign-in page shows. No browser.
import { describe, expect, it } from 'vitest';
import { readConsoleSettings, redirectUriOf, signInFailureText } from '../../console/src/auth/oidc-rules.ts';

const OIDC = { issuer: 'https://login.example.com', clientId: 'console', scope: 'openid' };

describe('readConsoleSettings', () => {
  it.each([
    ['no provider', { oidc: null }, { oidc: null }],
    ['a provider', { oidc: OIDC }, { oidc: OIDC }],
    ['more than the api sends, kept to what the console reads', { oidc: { ...OIDC, x: 1 } }, { oidc: OIDC }],
    ['a provider without its client', { oidc: { ...OIDC, clientId: '' } }, null],
    ['a provider that is no object', { oidc: 'https://login.example.com' }, null],
    ['no oidc at all', {}, null],
    ['an HTML page (a proxy’s error)', '<html>', null],
    ['nothing', null, null],
  ])('%s', (_, json, expected) => {
    expect(readConsoleSettings(json)).toEqual(expected);
  });
});

describe('redirectUriOf', () => {
  it('is the callback under the console on its own origin', () => {
    expect(redirectUriOf('https://platform.example.com', '/console')).toBe(
      'https://platform.example.com/console/auth/callback',
    );
  });
});

describe('signInFailureText', () => {
  it.each([
    [
      'the person cancelled at the provider',
      { error: 'access_denied', error_description: 'End-User aborted interaction' },
      'Your identity provider did not sign you in: End-User aborted interaction.',
    ],
    [
      'access denied without a description',
      { error: 'access_denied' },
      'Your identity provider did not sign you in: access was denied.',
    ],
    [
      'another OAuth error, its description’s full stop not doubled',
      { error: 'invalid_scope', error_description: 'scope platform is not allowed.' },
      'Your identity provider refused the sign-in (invalid_scope: scope platform is not allowed).',
    ],
    [
      'an OAuth error alone',
      { error: 'server_error' },
      'Your identity provider refused the sign-in (server_error).',
    ],
    [
      'an answer for a sign-in this tab did not start',
      { message: 'No matching state found in storage' },
      'This sign-in was not started in this tab, or has already been used. Sign in again.',
    ],
    [
      'a provider out of reach',
      { message: 'Failed to fetch' },
      'Your identity provider could not be reached. Check your connection and sign in again.',
    ],
    [
      'anything else',
      { message: 'Invalid response Content-Type' },
      'The sign-in did not complete: Invalid response Content-Type. Sign in again.',
    ],
    ['nothing said', null, 'The sign-in did not complete. Sign in again.'],
  ])('%s', (_, thrown, expected) => {
    expect(signInFailureText(thrown)).toBe(expected);
  });
});
