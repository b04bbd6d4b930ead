// The console in a real browser against the real platform: `platform start` as a newcomer runs it (its
// processes, embedded PostgreSQL, the console that `npm ci` built), Debian's Chromium driven through
// playwright-core (no browser of Playwright's own), and sign-in through `npx platform console`'s link.
// The browser files share their worker's stack (sharedConsoleStack), each as a tenant of its own; a file
// that needs settings no other may have (an identity provider) starts its own (startConsoleStack). Each
// page opens in a fresh tab of the file's browser context, so each has its own session storage (its own
// signed-in tab).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { consoleLink } from '../../src/cli/console-link.ts';
import { mintToken } from '../../src/cli/token.ts';
import { loadConfig } from '../../src/config.ts';
import { copyDataDirTemplate } from './data-dir-template.ts';
import {
  baseEnv,
  type Env,
  freePorts,
  ROOT,
  type Running,
  run,
  signal,
  startedDataDir,
  startPlatform,
  startUntrackedPlatform,
} from './processes.ts';
import { timed } from './profile.ts';
import { recordSharedPlatform } from './shared-platforms.ts';

/**
 * Debian's Chromium in its headless build, the chromium-headless-shell package (`.ci/run` installs it when
 * it is missing): the same Blink, V8 and network stack as the browser, without the browser's own windows.
 * The full browser run headless still renders its own WebUI (the omnibox popup) in renderers of its own:
 * test/console/runs.test.ts cost 40.5 s of Chromium's CPU with it and 14.6 s with this (docs/testing.md).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
export const CONSOLE_DIST = path.join(ROOT, 'console', 'dist');
const SCREENSHOTS = path.join(ROOT, 'docs', 'screenshots');

export type Role = 'admin' | 'analyst';

export interface SignIn {
  role: Role;
  user?: string;
  /** The console page the link lands on (`--page`); Home by default. */
  page?: string;
  expiresIn?: string;
}

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field in the expectations
  body: any;
}

export interface ConsoleStack {
  /** The API's address as `platform start` printed it. */
  api: string;
  /** What `platform start` printed. */
  banner: string;
  tenant: string;
  env: Env;
  browser: Browser;
  /** The link `npx platform console --tenant <tenant> …` prints. */
  signInLink(signIn: SignIn): Promise<string>;
  /** A token as `npx platform token` prints it, for the API calls a test makes to set the scene. */
  token(role: Role, user?: string): Promise<string>;
  /** A call of the API with `token`; its status and JSON body. */
  call(token: string, method: string, route: string, json?: unknown): Promise<Answer>;
  /** `path` of the console in a fresh tab signed in through the link, once the fragment is gone. */
  openPage(path: string, signIn: Role | SignIn): Promise<Page>;
  /** A fresh tab that is signed in nowhere. */
  blankPage(): Promise<Page>;
  stop(): Promise<void>;
}

/** A running platform and browser, for one file (startConsoleStack) or a worker's files (sharedConsoleStack). */
interface Base {
  api: string;
  banner: string;
  env: Env;
  browser: Browser;
  stop(): Promise<void>;
}

const launchChromium = () =>
  timed('starting', () =>
    chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // Chromium's sandbox refuses to run as root (CI and this machine run tests as root). One renderer for
      // the console's tabs instead of one each: V8 compiles the console's scripts and axe-core once for
      // them all, and fewer processes start (test/console: 104 -> 86 s of Chromium's CPU). Each tab keeps
      // its own document, script context and session storage.
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--process-per-site'],
    }),
  );

function assertBuilt(): void {
  if (!existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
    throw new Error('the console is not built: run `npm run build:console` (npm ci builds it)');
  }
}

const apiOf = (platform: Running, port: string) => {
  const api = /^ {2}API {8}(http\S+)$/m.exec(platform.stdout)?.[1] as string;
  expect(api, platform.stdout).toBe(`http://127.0.0.1:${port}`);
  return api;
};

/** A stack of the file's own: its own platform and browser, stopped by stop(). */
export async function startConsoleStack(
  prefix: string,
  tenant = 'console',
  /**
   * More of the platform's settings over the test defaults (an identity provider's AUTH_* and
   * CONSOLE_OIDC_CLIENT_ID: what the shared stack cannot have).
   */
  settings: Env = {},
): Promise<ConsoleStack> {
  assertBuilt();
  const dataDir = await startedDataDir(prefix);
  const ports = await freePorts();
  const env = baseEnv({ ...ports, DATA_DIR: dataDir, ...settings });
  const [platform, browser] = await Promise.all([startPlatform(['--role', 'all'], env), launchChromium()]);
  const base: Base = {
    api: apiOf(platform, ports.PORT),
    banner: platform.stdout,
    env,
    browser,
    stop: async () => {
      await browser.close();
      await stopPlatform(platform);
    },
  };
  const view = await tenantView(base, tenant);
  return { ...view, stop: base.stop };
}

/**
 * What the browser files need of the platform beside the test defaults: vendor and webhook doubles on
 * loopback, and deliveries at the trail's next pass (no ten-second hold, WEBHOOK_TRAIL_HOLD_MS).
 */
const SHARED_SETTINGS: Env = {
  APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_TRAIL_HOLD_MS: '0',
};

/** This worker's shared platform and browser, started by the first file that asks (test/support/shared-platforms.ts). */
let shared: Promise<Base> | undefined;

async function startShared(): Promise<Base> {
  assertBuilt();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-console-shared-'));
  await fs.chmod(dir, 0o755); // PostgreSQL runs as its own user and must reach its directory
  const dataDir = path.join(dir, 'data');
  await copyDataDirTemplate(inject('dataDirTemplate'), dataDir);
  const ports = await freePorts();
  const env = baseEnv({ ...ports, DATA_DIR: dataDir, ...SHARED_SETTINGS });
  // Recorded as soon as it runs, so that the run's teardown stops it even when Chromium fails to start
  // (a machine without chromium-headless-shell left every worker's platform running).
  const started = startUntrackedPlatform(['--role', 'all'], env).then(async (platform) => {
    await recordSharedPlatform(inject('sharedPlatforms'), {
      pid: platform.child.pid as number,
      dataDir,
      dir,
    });
    return platform;
  });
  const [platformStart, browserStart] = await Promise.allSettled([started, launchChromium()]);
  if (platformStart.status === 'rejected' || browserStart.status === 'rejected') {
    if (browserStart.status === 'fulfilled') await browserStart.value.close();
    throw platformStart.status === 'rejected'
      ? platformStart.reason
      : (browserStart as PromiseRejectedResult).reason;
  }
  const [platform, browser] = [platformStart.value, browserStart.value];
  return {
    api: apiOf(platform, ports.PORT),
    banner: platform.stdout,
    env,
    browser,
    stop: async () => {},
  };
}

/**
 * The worker's shared stack seen as `tenant` (a tenant no other file uses): one `platform start` and one
 * Chromium for every browser file the worker runs, instead of one each. The file's stop() closes its own
 * tabs; the platform stops after the run (the global set-up's teardown).
 */
export async function sharedConsoleStack(tenant: string): Promise<ConsoleStack> {
  shared ??= startShared().catch((error) => {
    shared = undefined;
    throw error;
  });
  return tenantView(await shared, tenant);
}

/** The stack as one tenant's people use it, with a browser context of its own (closed by stop()). */
async function tenantView(base: Base, tenant: string): Promise<ConsoleStack> {
  const { api, env, browser } = base;
  const signInLink = async ({ role, user, page, expiresIn }: SignIn) => {
    const args = ['console', '--tenant', tenant, '--role', role];
    if (user !== undefined) args.push('--user', user);
    if (page !== undefined) args.push('--page', page);
    if (expiresIn !== undefined) args.push('--expires-in', expiresIn);
    const printed = await run(args, env);
    expect(printed.code, printed.stderr).toBe(0);
    return printed.stdout.trim();
  };
  // Tokens for the scene's API calls and the tabs' sign-in minted in this process by the function both
  // commands run (src/cli/token.ts, on the platform's own DATA_DIR and database): what the commands print
  // is console.test.ts's and cli.test.ts's subject, and a spawn costs about a second of CPU.
  const mint = (role: Role, user: string | undefined) =>
    mintToken(loadConfig(env), { tenant, role, user, permission: [], expiresIn: '12h' });
  const token = (role: Role, user?: string) => mint(role, user);
  const call = async (bearer: string, method: string, route: string, json?: unknown) => {
    const response = await fetch(`${api}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  // One token per principal, as `platform console` puts it in the fragment of the link it prints: a link
  // to another page is the same token after another path (consoleLink, which the command uses).
  const tokens = new Map<string, Promise<string>>();
  const linkTo = (asked: SignIn, at: string) => {
    // A short lifetime asked for is for that tab alone: never handed to a later one.
    if (asked.expiresIn !== undefined) return signInLink({ ...asked, page: at });
    const key = JSON.stringify([asked.role, asked.user]);
    // `platform console`'s own default user.
    if (!tokens.has(key)) tokens.set(key, mint(asked.role, asked.user ?? 'developer'));
    return (tokens.get(key) as Promise<string>).then((jwt) => consoleLink(api, jwt, at));
  };
  // One browser context for the file, a new tab in it for each page: the console keeps its session in the
  // tab's sessionStorage (never localStorage or cookies), so tabs of one context are signed in apart, and
  // a tab costs a fraction of a context.
  const context = await browser.newContext();
  const blankPage = () => context.newPage();
  const openPage = async (at: string, signIn: Role | SignIn) => {
    const asked = typeof signIn === 'string' ? { role: signIn } : signIn;
    const page = await blankPage();
    await page.goto(await linkTo(asked, at));
    await page.waitForURL((url) => url.hash === '' && !url.pathname.endsWith('/sign-in'));
    return page;
  };
  return {
    api,
    banner: base.banner,
    tenant,
    env,
    browser,
    signInLink,
    token,
    call,
    openPage,
    blankPage,
    stop: () => context.close(),
  };
}

async function stopPlatform(platform: Running): Promise<void> {
  signal(platform, 'SIGINT');
  await platform.exited;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

const axeSource = async () =>
  fs.readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core run in the page (evaluated through the browser's protocol, which the page's CSP does not
 * govern); the serious and critical violations, each with its rule and where.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await axeSource());
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)",
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map((n) => ({ target: n.target })),
    }));
}

/** docs/screenshots/<name>.png, only when CONSOLE_SCREENSHOTS=1 (`npm run console:screenshots`). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.CONSOLE_SCREENSHOTS !== '1') return;
  await fs.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The scripts a page loaded while `load` ran, and their size gzipped (what the budget counts). */
export async function scriptsLoaded(
  page: Page,
  load: () => Promise<void>,
): Promise<{ files: number; gzipBytes: number }> {
  const bodies: Promise<Buffer>[] = [];
  const onResponse = (response: import('playwright-core').Response) => {
    if (response.request().resourceType() === 'script') bodies.push(response.body());
  };
  page.on('response', onResponse);
  try {
    await load();
  } finally {
    page.off('response', onResponse);
  }
  const all = await Promise.all(bodies);
  return { files: all.length, gzipBytes: all.reduce((sum, body) => sum + gzipSync(body).length, 0) };
}

/**
 * Checks a control whose state lives in the page's URL (a filter): the console navigates, and the control
 * shows checked once the page renders the new URL, not at the click itself, which Playwright's check()
 * would take for a click that did nothing. Waits for the state instead.
 */
export async function choose(control: Locator): Promise<void> {
  await control.click();
  await expect.poll(() => control.isChecked(), { timeout: 30_000 }).toBe(true);
}

/** What a page shows, polled as long as Playwright's own waits (expect.poll's default is one second). */
export const SHOWN = { timeout: 30_000 };

/** Polls what a page shows as long as Playwright waits (a page loads its script, then its data). */
export const shown = <T>(read: () => Promise<T> | T) => expect.poll(read, { ...SHOWN, interval: 100 });

/** The body rows of the table captioned `caption`. */
export const rowsOf = (at: Page | Locator, caption: string | RegExp) =>
  at.getByRole('table', { name: caption }).locator('tbody tr');

/** Nothing the page showed ran as script (the probes set window.__xss if they ever run). */
export const noScriptRan = async (page: Page) => expect(await page.evaluate('window.__xss')).toBeUndefined();
