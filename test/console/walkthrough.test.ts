// The README's identity-verification story ("Try an asynchronous verification", then "Receive outbound
// webhooks") followed through the console in Debian's Chromium against `platform start`, as a tenant's
// admin does it in the browser: identity-verification installed from the catalogue against its vendor
// double (`app vendor-double --idv`), its secrets stored and the install enabled, a test call; an outbound
// endpoint added for run.completed on a local receiver (the tenant's receiver's double); a run of the
// README's kyc workflow waiting on its vendor session, seen on the run's page and under Vendor sessions;
// the double's webhook completing it while the page watches; the signed run.completed at the receiver and
// under deliveries; an analyst reading the same run. Home at the end shows the story's activity (the
// README's screenshot). The steps follow each other in one admin tab; nothing sleeps.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KYC_WORKFLOW } from '../e2e/idv-install.ts';
import { type Receiver, startReceiver, verifySignature } from '../outbound-webhooks/receiver.ts';
import {
  type Answer,
  axe,
  type ConsoleStack,
  rowsOf,
  screenshot,
  sharedConsoleStack,
  shown,
} from '../support/console.ts';
import { freePort } from '../support/free-port.ts';
import {
  baseEnv,
  cleanUpProcesses,
  removeTempDirs,
  signal,
  startVendorDoubleCommand,
  type VendorProcess,
} from '../support/processes.ts';

const SLOW = 120_000;
const API_KEY = 'idv-demo-1234';
const WEBHOOK_SECRET = 'whsec-demo-5678';

let stack: ConsoleStack;
let vendor: VendorProcess;
let receiver: Receiver;
/** The double as host:port, the admin's API token (for what the console does not offer), the admin's tab. */
let vendorHost: string;
let admin: string;
let page: Page;
/** What the story makes along the way: the endpoint's secret (shown once), the run, its vendor session. */
const story = { endpointSecret: '', runId: '', sessionId: '' };

beforeAll(async () => {
  [stack, receiver] = await Promise.all([sharedConsoleStack('demo'), startReceiver()]);
  const port = await vendorPort();
  vendor = await startVendorDoubleCommand(port, baseEnv({}), [
    '--idv',
    '--webhook-secret',
    WEBHOOK_SECRET,
    '--api-key',
    API_KEY,
  ]);
  vendorHost = `127.0.0.1:${port}`;
  admin = await stack.token('admin', 'ana');
  page = await stack.openPage('/apps', { role: 'admin', user: 'ana' });
}, 180_000);

afterAll(async () => {
  if (vendor) signal(vendor.child, 'SIGTERM');
  await stack?.stop();
  await receiver?.close();
  await cleanUpProcesses();
  await removeTempDirs();
});

/** A free port none of the platform's processes took. */
async function vendorPort(): Promise<number> {
  const taken = new Set(Object.values(stack.env));
  let port = await freePort();
  while (taken.has(String(port))) port = await freePort();
  return port;
}

const ok = async (answer: Promise<Answer>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};

const region = (at: Page | Locator, name: string | RegExp) =>
  at.getByRole('region', { name, exact: typeof name === 'string' });

/** A section of the console, reached as a person does: its link in the navigation. */
async function goTo(section: RegExp, heading: RegExp) {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: section }).click();
  await shown(() => page.textContent('h1')).toMatch(heading);
}

/** The page is axe-clean (no serious or critical violation). */
const accessible = async (at: Page = page) => expect(await axe(at)).toEqual([]);

describe('the README’s identity verification, through the console', () => {
  it(
    '1. installs identity-verification from the catalogue against the vendor, stores its two secrets (never shown again) and enables it',
    async () => {
      const catalogue = region(page, 'Catalogue');
      const app = catalogue.getByRole('row').filter({ hasText: 'identity-verification' });
      await app.waitFor();
      expect(await app.textContent()).toContain('none'); // no install of it yet
      await accessible();
      await app.getByRole('link', { name: 'Install identity-verification' }).click();

      const form = region(page, 'Install an app');
      await shown(() => form.getByLabel('App', { exact: true }).inputValue()).toBe('identity-verification');
      await form.getByLabel('Install name').fill('idv');
      await form.getByLabel('baseUrl').fill(`http://${vendorHost}`);
      await form.getByRole('checkbox', { name: `Approve ${vendorHost}` }).check();
      expect(await form.getByRole('checkbox', { name: /^Enabled/ }).isChecked()).toBe(false);
      await accessible();
      await form.getByRole('button', { name: 'Install', exact: true }).click();

      await page.waitForURL('**/console/apps/installs/idv');
      await shown(() => page.textContent('h1')).toBe('Install idv');
      const overview = region(page, 'Overview');
      await shown(() => overview.textContent()).toContain('missing secrets: API_KEY, WEBHOOK_SECRET');
      expect(await overview.textContent()).toContain(vendorHost);

      const secrets = region(page, 'Secrets');
      for (const [name, value] of [
        ['API_KEY', API_KEY],
        ['WEBHOOK_SECRET', WEBHOOK_SECRET],
      ] as const) {
        const input = secrets.getByLabel(`Value for ${name}`);
        await input.fill(value);
        expect(await input.getAttribute('type')).toBe('password');
        await secrets.getByRole('button', { name: `Store ${name}` }).click();
        await secrets.getByLabel(`New value for ${name}`).waitFor();
      }
      await shown(() => secrets.textContent()).not.toContain('missing');
      await page.getByRole('button', { name: 'Enable install' }).click();
      await page.getByRole('button', { name: 'Disable install' }).waitFor();
      await shown(() => overview.textContent()).not.toContain('missing secrets');
      // Stored, never shown back: neither value is anywhere in the page.
      for (const value of [API_KEY, WEBHOOK_SECRET]) expect(await page.content()).not.toContain(value);
      await accessible();
    },
    SLOW,
  );

  it(
    '2. makes a test call from the install’s page: the vendor opens a session and the answer says pending with its id',
    async () => {
      const panel = region(page, 'Test call');
      expect(await panel.getByLabel('Action').inputValue()).toBe('start_verification');
      await panel.getByLabel('Input (JSON)').fill(JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace' }));
      await panel.getByRole('button', { name: 'Send test call' }).click();
      const answer = region(page, 'Answer');
      await answer.waitFor();
      expect(await answer.textContent()).toMatch(/Statuspending.*Vendor’s idsess_[0-9a-f]{12}/);
      expect(await page.content()).not.toContain(API_KEY);
      await accessible();
    },
    SLOW,
  );

  it(
    '3. adds an outbound endpoint on the Webhooks page for run.completed, pointing at the tenant’s receiver; its secret shown once',
    async () => {
      await goTo(/^Webhooks/, /^Webhooks$/);
      const form = region(page, 'Add an endpoint');
      await form.getByLabel('URL').fill(`${receiver.url}/hooks`);
      await form.getByLabel('Description (optional)').fill('KYC decisions to our case system');
      await form.getByRole('checkbox', { name: /run\.completed/ }).check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      const created = region(page, /^Endpoint created: /);
      await created.waitFor();
      expect(await created.textContent()).toContain('Copy it now: it will not be shown again.');
      story.endpointSecret = (await created.locator('code.webhook-secret-value').textContent()) ?? '';
      expect(story.endpointSecret).toMatch(/^whsec_/);
      const endpoints = region(page, 'Endpoints');
      const row = endpoints.getByRole('row').filter({ hasText: `${receiver.url}/hooks` });
      await shown(() => row.textContent()).toContain('run.completed');
      await accessible();
    },
    SLOW,
  );

  it(
    '4. a run of the kyc workflow waits on its vendor session: on the run’s page and under Vendor sessions',
    async () => {
      // The console offers no editor of definitions and no "start a run" (runs are started by the tenant's
      // systems): the README's workflow is published and its run started through the API.
      await ok(stack.call(admin, 'POST', '/workflow-definitions', { key: 'kyc', body: KYC_WORKFLOW }), 201);
      await ok(stack.call(admin, 'POST', '/workflow-definitions/kyc/publish'));
      const started = await ok(
        stack.call(admin, 'POST', '/workflow-runs', {
          workflow: 'kyc',
          subjectId: 'applicant-7',
          context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
        }),
        201,
      );
      story.runId = started.id;

      await goTo(/^Runs/, /^Runs$/);
      const run = rowsOf(page, 'Runs, newest first').filter({ hasText: story.runId });
      await shown(() => run.textContent()).toContain('waiting on a vendor');
      expect(await run.textContent()).toContain('kyc v1');
      await accessible();
      await run.getByRole('link', { name: story.runId }).click();
      await page.waitForURL(`**/console/runs/${story.runId}`);
      await shown(() => page.locator('dd .status').first().textContent()).toBe('waiting on a vendor');
      expect(await page.textContent('main')).toContain('this page follows it');
      const session = rowsOf(page, 'Sessions the run waits or waited on');
      await shown(() => session.count()).toBe(1);
      expect(await session.textContent()).toMatch(
        /idv · start_verification.*verify.*sess_[0-9a-f]{12}pending/,
      );
      // A run still waiting can be cancelled by an admin: the write button an analyst is not offered (step 7).
      await page.getByRole('button', { name: 'Cancel run…' }).waitFor();
      await accessible();

      await goTo(/^Vendor sessions/, /^Vendor sessions$/);
      const listed = rowsOf(page, 'Vendor sessions, newest first').filter({
        has: page.getByRole('link', { name: `Run ${story.runId}` }),
      });
      await shown(() => listed.textContent()).toContain('pending');
      story.sessionId = /sess_[0-9a-f]{12}/.exec((await listed.textContent()) ?? '')?.[0] ?? '';
      expect(story.sessionId).not.toBe('');
      await accessible();
    },
    SLOW,
  );

  it(
    '5. the vendor decides: its signed webhook completes the session, and the open run page shows the run completed without a reload',
    async () => {
      await page.getByRole('link', { name: `Run ${story.runId}` }).click();
      await page.waitForURL(`**/console/runs/${story.runId}`);
      await shown(() => page.locator('dd .status').first().textContent()).toBe('waiting on a vendor');
      // A mark in this document: a reload or a navigation would lose it.
      await page.evaluate('window.__sameDocument = true');

      const decided = await fetch(`http://${vendorHost}/__double/sessions/${story.sessionId}/decide`, {
        method: 'POST',
        body: JSON.stringify({ decision: 'approved' }),
      });
      const body = await decided.json();
      expect(decided.status, JSON.stringify(body)).toBe(200);
      expect(body.platform).toMatchObject({ status: 202, body: { received: true, status: 'completed' } });

      await shown(() => page.locator('dd .status').first().textContent()).toBe('completed');
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      const steps = rowsOf(page, /start, end, duration and outcome/);
      await shown(() => steps.count()).toBe(2);
      expect(await steps.nth(0).textContent()).toMatch(/^verify call_appcompleted/);
      expect(await steps.nth(1).textContent()).toMatch(/^decide decidecompleted/);
      await shown(() => rowsOf(page, 'Sessions the run waits or waited on').textContent()).toContain(
        'completed',
      );
      expect(await page.textContent('main')).toContain(
        'This run has ended (completed): it can no longer be cancelled.',
      );
      // The admin (runs:context) reads the attempt's input: the applicant's names.
      const attempt = rowsOf(page, /Every attempt of the run’s steps/).first();
      await attempt.getByText('Input').click();
      expect(await attempt.locator('pre').first().textContent()).toContain('Lovelace');
      // runs.test.ts takes the run page's screenshot: its run also has other runs on its subject to show.
      await accessible();
    },
    SLOW,
  );

  it(
    '6. the receiver gets the signed run.completed, and the Webhooks page’s deliveries show it delivered',
    async () => {
      // The worker reads the trail every 2 s; the shared stack holds no event back (WEBHOOK_TRAIL_HOLD_MS=0).
      await expect
        .poll(
          () => receiver.received.filter((r) => r.headers['x-service-event'] === 'run.completed').length,
          {
            timeout: 60_000,
            interval: 200,
          },
        )
        .toBe(1);
      const delivery = receiver.received.find((r) => r.headers['x-service-event'] === 'run.completed');
      const signature = String(delivery?.headers['x-service-signature']);
      expect(verifySignature(signature, delivery?.body ?? '', story.endpointSecret)).toBe(true);
      expect(JSON.parse(delivery?.body ?? '{}')).toMatchObject({
        type: 'run.completed',
        data: { workflowRunId: story.runId, workflow: 'kyc', subjectId: 'applicant-7' },
      });

      await goTo(/^Webhooks/, /^Webhooks$/);
      await page
        .getByRole('navigation', { name: 'Webhooks' })
        .getByRole('link', { name: 'Deliveries' })
        .click();
      await shown(() => page.textContent('h1')).toBe('Webhook deliveries');
      const row = region(page, 'Deliveries').getByRole('row', { name: /run\.completed/ });
      await row.getByText('delivered', { exact: true }).waitFor();
      expect(await row.textContent()).toContain(`${receiver.url}/hooks`);
      await row.getByRole('link', { name: /^Show attempts/ }).click();
      const attempts = region(page, /^Attempts of the run\.completed delivery/);
      await shown(() => attempts.getByRole('row', { name: /^1 / }).textContent()).toContain('204');
      await accessible();
    },
    SLOW,
  );

  it(
    '7. an analyst sees the same run completed, with no write button and the applicant’s data redacted',
    async () => {
      const analyst = await stack.openPage(`/runs/${story.runId}`, { role: 'analyst', user: 'cleo' });
      await shown(() => analyst.locator('dd .status').first().textContent()).toBe('completed');
      const attempt = rowsOf(analyst, /Every attempt of the run’s steps/).first();
      await shown(() => attempt.locator('.redacted').allTextContents()).toEqual(['[redacted]']);
      expect(await analyst.textContent('main')).toContain('your role does not hold runs:context');
      expect(await analyst.textContent('main')).not.toContain('Lovelace');
      expect(await analyst.getByRole('main').getByRole('button').count()).toBe(0);
      await accessible(analyst);
      await analyst.close();
    },
    SLOW,
  );

  it(
    'Home, at the end of the story: the admin’s activity shows the kyc workflow published',
    async () => {
      await goTo(/^Home/, /^Home$/);
      const activity = region(page, 'Activity');
      await activity.getByRole('link', { name: /published workflow kyc version 1/ }).waitFor();
      await accessible();
      await screenshot(page, 'home');
      await page.close();
    },
    SLOW,
  );
});
