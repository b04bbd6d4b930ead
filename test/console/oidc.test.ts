// The console's production sign-in against a real OpenID provider (oidc-provider, in this process on
// 127.0.0.1): the platform started with AUTH_ISSUER, AUTH_JWKS_URL and AUTH_AUDIENCE naming it and
// CONSOLE_OIDC_CLIENT_ID, so its api accepts the provider's tokens (and no local ones). Chromium signs in
// as a person would: the console's button, the provider's login and consent pages, back to the console
// (authorization code with PKCE), on the page asked for, with nothing of the sign-in left in the address.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, type ConsoleStack, SHOWN, screenshot, startConsoleStack } from '../support/console.ts';
import { type IdentityProvider, startIdentityProvider } from '../support/identity-provider.ts';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';

const SLOW = 120_000;
/** How long a page may take to show what a test waits for (two shared cores, several test runs). */
/** A tab of its own browser context: the provider's session cookie from one sign-in must not carry into the next. */
const freshBrowser = async () => (await stack.browser.newContext()).newPage();
const CLIENT_ID = 'platform-console';
const AUDIENCE = 'https://platform.test/api';
/** The sign-in's traces an address must never keep. */
const SIGN_IN_TRACES = /[?&#](code|state|token|session_state|iss)=/;

let provider: IdentityProvider;
let stack: ConsoleStack;

beforeAll(async () => {
  provider = await startIdentityProvider();
  stack = await startConsoleStack('apps-platform-console-oidc-', 'console', {
    AUTH_ISSUER: provider.issuer,
    AUTH_JWKS_URL: provider.jwksUrl,
    AUTH_AUDIENCE: AUDIENCE,
    CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
    CONSOLE_OIDC_SCOPE: 'openid platform',
  });
  // `platform token` creates the tenant (its token, signed with the local key, the api now refuses).
  const tenant = tenantOf(await stack.token('admin'));
  await provider.register({
    clientId: CLIENT_ID,
    redirectUri: `${stack.api}/console/auth/callback`,
    audience: AUDIENCE,
    apiScope: 'platform',
    accounts: {
      ada: { claims: { tenant, name: 'Ada Lovelace', roles: ['admin'], kind: 'human' } },
      brief: { claims: { tenant, name: 'Brief Visitor', roles: ['analyst'] }, accessTokenTtl: 3 },
    },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await provider?.stop();
  await cleanUpProcesses();
  await removeTempDirs();
});

const tenantOf = (token: string): string =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()).tenant;

/** On the console's sign-in page: the provider's button, then its login page filled in as a person would. */
async function logInAtProvider(page: Page, login: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
  await page.waitForURL((url) => url.origin === provider.issuer);
  await page.getByPlaceholder('Enter any login').fill(login);
  await page.getByPlaceholder('and password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Sign-in' }).click();
}

/** Every address the tab showed on the console's origin, as it showed them. */
function consoleAddresses(page: Page): string[] {
  const seen: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().startsWith(stack.api)) seen.push(frame.url());
  });
  return seen;
}

describe('signing in through the identity provider', () => {
  it('offers the provider, allows the browser to reach only it besides the console, and passes axe', async () => {
    const answer = await fetch(`${stack.api}/console/config.json`);
    expect(await answer.json()).toEqual({
      oidc: { issuer: provider.issuer, clientId: CLIENT_ID, scope: 'openid platform' },
    });
    expect(answer.headers.get('content-security-policy')).toContain(`connect-src 'self' ${provider.issuer};`);

    const page = await freshBrowser();
    await page.goto(`${stack.api}/console/sign-in`);
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).waitFor();
    expect(await page.textContent('main')).toContain(
      `Your organisation signs you in at ${new URL(provider.issuer).host}`,
    );
    expect(await page.textContent('main')).not.toContain('npx platform console');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'sign-in-identity-provider');
    await page.context().close();
  });

  it(
    'a deep link goes through the provider and lands on the page asked for, signed in with its token',
    async () => {
      const page = await freshBrowser();
      const addresses = consoleAddresses(page);
      await page.goto(`${stack.api}/console/apps/installs?status=failing`);
      await page.waitForURL('**/console/sign-in');
      await logInAtProvider(page, 'ada');
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.waitForURL(`${stack.api}/console/apps/installs?status=failing`);
      const header = page.getByRole('banner');
      await expect.poll(() => header.textContent(), SHOWN).toContain('Tenant: console'); // GET /tenants/me
      expect(await header.textContent()).toContain('Ada Lovelace');
      expect(await header.textContent()).toContain('admin');

      // The callback's address held the code and state for as long as it took to load the page, and never
      // after: the address was replaced at boot, before the exchange; no address after it holds either.
      const callback = addresses.findIndex((url) => url.includes('/console/auth/callback?'));
      expect(callback, addresses.join('\n')).toBeGreaterThanOrEqual(0);
      expect(addresses.slice(callback + 1).filter((url) => SIGN_IN_TRACES.test(url))).toEqual([]);
      expect(page.url()).not.toMatch(SIGN_IN_TRACES);

      // The session is the provider's access token, which the api accepts: Home's data loads.
      const token = await page.evaluate(() => sessionStorage.getItem('console.token'));
      const claims = JSON.parse(Buffer.from(String(token).split('.')[1] as string, 'base64url').toString());
      expect(claims).toMatchObject({ iss: provider.issuer, aud: AUDIENCE, sub: 'ada', roles: ['admin'] });
      await page.getByRole('link', { name: 'Apps Platform' }).click();
      const attention = page.getByRole('region', { name: 'Needs attention' });
      await expect.poll(() => attention.textContent(), SHOWN).toContain('Nothing waits for anyone.');
      expect((await stack.call(String(token), 'GET', '/tenants/me')).status).toBe(200);
      expect(page.url()).not.toMatch(SIGN_IN_TRACES);
      await page.context().close();
    },
    SLOW,
  );

  it(
    'a sign-in the person cancels at the provider comes back to the sign-in page saying so',
    async () => {
      const page = await freshBrowser();
      await page.goto(`${stack.api}/console/sign-in`);
      await logInAtProvider(page, 'ada');
      await page.getByRole('link', { name: '[ Cancel ]' }).click();

      await page.waitForURL(`${stack.api}/console/sign-in`);
      await expect
        .poll(() => page.getByRole('alert').textContent(), SHOWN)
        .toBe('Your identity provider did not sign you in: End-User aborted interaction.');
      expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'sign-in-refused');
      await page.context().close();
    },
    SLOW,
  );

  it(
    'a session ends when the provider’s token expires, and the sign-in page says when',
    async () => {
      const page = await freshBrowser();
      await page.goto(`${stack.api}/console/sign-in`);
      await logInAtProvider(page, 'brief');
      await page.getByRole('button', { name: 'Continue' }).click();
      // The token lives 3 s: the console's timer at its exp sends the person from Home to sign in again
      // (on a machine slow enough that it expired on the way, the callback refuses it with the same words).
      await page.waitForURL('**/console/sign-in', { timeout: 30_000 });
      await expect.poll(() => page.textContent('main'), SHOWN).toContain('Your session expired at');
      await page.context().close();
    },
    SLOW,
  );
});
