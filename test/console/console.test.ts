// The console in Debian's Chromium against `platform start`: served with its security and caching headers,
// signed in through `npx platform console`'s link (the fragment cleared at once), a deep link through
// sign-in, an expired session, Home's attention list, activity and notifications, what an analyst is
// offered, tenant-written text shown as text, and axe-core's check. One platform and one browser for the
// file; every page in a fresh context (its own tab's session storage).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideOnly } from '../runs/approvals-support.ts';
import {
  type Answer,
  axe,
  type ConsoleStack,
  choose,
  SHOWN,
  scriptsLoaded,
  sharedConsoleStack,
} from '../support/console.ts';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';

const SLOW = 120_000;
/** Tenant-written text that would run script if it were ever put into the page as HTML. */
const PROBE = '<img src=x onerror=window.__xss=1>';

let stack: ConsoleStack;
/** The install change waiting for approval, asked for by the admin named PROBE. */
let changeId: string;

beforeAll(async () => {
  stack = await sharedConsoleStack('console');
  changeId = await setTheScene(stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await cleanUpProcesses();
  await removeTempDirs();
});

/**
 * As an admin whose display name is PROBE: a workflow published (an activity item linking to its
 * version), then, with approvals required for apps, an install saved and held (an attention item and an
 * approval_requested notification to every admin).
 */
async function setTheScene(s: ConsoleStack): Promise<string> {
  const admin = await s.token('admin', PROBE);
  const ok = async (answer: Promise<Answer>, status: number) => {
    const { status: got, body } = await answer;
    expect(got, JSON.stringify(body)).toBe(status);
    return body;
  };
  await ok(s.call(admin, 'POST', '/workflow-definitions', { key: 'onboarding', body: decideOnly() }), 201);
  await ok(s.call(admin, 'POST', '/workflow-definitions/onboarding/publish'), 200);
  const versions = await ok(s.call(admin, 'GET', '/apps/http-connector/versions'), 200);
  await ok(
    s.call(admin, 'PUT', '/tenants/me/settings', {
      approvals: { required: true, requiredFor: ['app'], fourEyes: false },
      collection: { flowUrl: null },
    }),
    200,
  );
  const held = await ok(
    s.call(admin, 'POST', '/app-installs', {
      name: 'kyc',
      versionId: versions.items[0].id,
      enabled: false,
      config: { baseUrl: 'https://vendor.example' },
      approveHosts: ['vendor.example'],
    }),
    202,
  );
  return held.change.id as string;
}

/** The held install's item in the attention list. */
const attentionItem = (page: Page) =>
  page.getByRole('region', { name: 'Needs attention' }).getByRole('link', { name: /asked to install kyc/ });

describe('serving', () => {
  it('answers every console path with its CSP, no-sniff and no-referrer; hashed files cached a year, pages revalidated', async () => {
    expect(stack.banner).toContain(`  Console    ${stack.api}/console/`);
    expect(stack.banner).toMatch(
      /^Open the console: {2}DATA_DIR=\S+ npx platform console --tenant acme --role admin --open$/m,
    );

    const page = await fetch(`${stack.api}/console/runs/0190d5e2-0000-7000-8000-000000000000`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');

    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await fetch(`${stack.api}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(csp);
  });
});

describe('signing in', () => {
  it(
    'a deep link opened without a session goes through sign-in and comes back to the page asked for',
    async () => {
      const page = await stack.blankPage();
      await page.goto(`${stack.api}/console/runs/run-1?status=running`);
      await page.waitForURL('**/console/sign-in');
      await expect.poll(() => page.textContent('main'), SHOWN).toContain('Sign in to continue.');
      expect(await page.textContent('main')).toContain(
        'After signing in you return to /runs/run-1?status=running',
      );
      // No identity provider is configured here (no CONSOLE_OIDC_CLIENT_ID): the page explains the link.
      await page.getByRole('heading', { name: 'With a development sign-in link' }).waitFor();
      expect(await page.textContent('main')).toContain('npx platform console --tenant acme --role admin');
      expect(await page.getByRole('button', { name: /identity provider/ }).count()).toBe(0);

      // The link `npx platform console` prints (Home), opened in the same tab.
      await page.goto(await stack.signInLink({ role: 'admin' }));
      await page.waitForURL('**/console/runs/run-1?status=running');
      await expect.poll(() => page.textContent('h1'), SHOWN).toBe('Run');
      await page.close();
    },
    SLOW,
  );

  it(
    'takes the token from the fragment and clears it at once: no URL holds it, the tab’s session storage does',
    async () => {
      const link = await stack.signInLink({ role: 'admin' });
      const token = new URL(link).hash.replace('#token=', '');
      expect(token.split('.')).toHaveLength(3);
      const page = await stack.blankPage();
      const requested: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      await page.goto(link);
      await page.waitForURL((url) => url.hash === '');
      await expect.poll(() => page.textContent('h1'), SHOWN).toBe('Home');
      expect(page.url()).toBe(`${stack.api}/console/`);
      expect(await page.evaluate<string>('window.location.href')).not.toContain(token);
      expect(requested.filter((url) => url.includes(token))).toEqual([]);
      expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBe(token);
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      expect(await page.evaluate<string>('document.cookie')).toBe('');
      await page.close();
    },
    SLOW,
  );

  it(
    'an expired token brings the person to the sign-in page, which says when it expired',
    async () => {
      const page = await stack.blankPage();
      await page.goto(await stack.signInLink({ role: 'admin', expiresIn: '2s' }));
      await page.waitForURL('**/console/sign-in', { timeout: 30_000 });
      await expect.poll(() => page.textContent('main'), SHOWN).toContain('Your session expired at');
      expect(await page.evaluate(() => sessionStorage.getItem('console.token'))).toBeNull();
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );
});

describe('Home', () => {
  it(
    'shows what needs attention, the activity and the notifications; their links open their pages; a notification is marked read',
    async () => {
      const page = await stack.blankPage();
      const link = await stack.signInLink({ role: 'admin', user: 'ana' });
      const startedAt = performance.now();
      let homeMs = 0;
      const scripts = await scriptsLoaded(page, async () => {
        await page.goto(link);
        await attentionItem(page).waitFor();
        homeMs = performance.now() - startedAt;
      });
      console.info(
        `console: first page ${scripts.files} script file(s), ${(scripts.gzipBytes / 1024).toFixed(1)} KiB gzipped (budget 250 KiB); Home with data after ${Math.round(homeMs)} ms (goal 1500 ms)`,
      );
      await page.getByRole('link', { name: /published workflow onboarding version 1/ }).waitFor();
      // Home's screenshot is the walkthrough's (walkthrough.test.ts): the README's story, not this scene.
      expect(await axe(page)).toEqual([]);

      // The attention item's link: the install change's page.
      await attentionItem(page).click();
      await page.waitForURL(`**/console/apps/installs/kyc/changes/${changeId}`);
      await expect.poll(() => page.textContent('h1'), SHOWN).toBe('Install change');
      await page.goBack();
      // The activity item's link: the workflow's version.
      await page.getByRole('link', { name: /published workflow onboarding version 1/ }).click();
      await page.waitForURL('**/console/workflows/onboarding/versions/1');
      await page.goBack();

      // The approval_requested notification every admin received, marked read.
      const notifications = page.getByRole('region', { name: 'Notifications' });
      const markRead = notifications.getByRole('button', {
        name: /^Mark read\W+.*asked to change install kyc/,
      });
      await markRead.waitFor();
      const unreadBadge = page
        .getByRole('navigation', { name: 'Sections' })
        .getByText('unread notifications');
      await unreadBadge.waitFor({ state: 'attached' });
      await markRead.click();
      await markRead.waitFor({ state: 'detached' });
      await unreadBadge.waitFor({ state: 'detached' });
      const unread = await stack.call(await stack.token('admin', 'ana'), 'GET', '/notifications?unread=true');
      expect(unread.body.total).toBe(0);
      await page.close();
    },
    SLOW,
  );

  it(
    'offers an analyst no write: the attention list without any button (marking read is everyone’s, and an analyst has no notification here)',
    async () => {
      const page = await stack.openPage('/', 'analyst');
      await attentionItem(page).waitFor();
      await expect
        .poll(() => page.getByRole('region', { name: 'Notifications' }).textContent())
        .toContain('No notifications.');
      expect(await page.locator('main button').count()).toBe(0);
      expect(await page.textContent('header')).toContain('analyst');
      await page.close();
    },
    SLOW,
  );

  it(
    'shows tenant-written text as text: a display name holding markup is never run or made an element',
    async () => {
      const page = await stack.openPage('/', { role: 'admin', user: PROBE });
      const item = attentionItem(page);
      await item.waitFor();
      expect(await item.textContent()).toContain(PROBE);
      expect(await page.textContent('header')).toContain(PROBE);
      await page.getByRole('link', { name: /published workflow onboarding/ }).waitFor();
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      await page.close();
    },
    SLOW,
  );

  it(
    'says when the platform cannot be reached, and goes on once it answers again',
    async () => {
      const page = await stack.openPage('/', 'admin');
      await attentionItem(page).waitFor();
      // The network between this tab and the platform drops: the browser's API requests fail.
      const apiCalls = (url: URL) => !url.pathname.startsWith('/console/');
      await page.route(apiCalls, (route) => route.abort('internetdisconnected'));
      await choose(page.getByRole('checkbox', { name: 'Unread only' })); // a read the page must make
      const banner = page.getByRole('alert').filter({ hasText: 'The platform cannot be reached' });
      await banner.waitFor();
      await page.unroute(apiCalls);
      await page.getByRole('button', { name: 'Retry now' }).click();
      await banner.waitFor({ state: 'detached' });
      await expect
        .poll(() => page.getByRole('region', { name: 'Notifications' }).textContent())
        .toContain('Mark read');
      await attentionItem(page).waitFor();
      await page.close();
    },
    SLOW,
  );
});
