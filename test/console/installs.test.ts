// The installs pages in Debian's Chromium against `platform start` (with private networks allowed, so the
// vendor doubles on 127.0.0.1 are callable): identity-verification installed from the catalogue through
// the page (a host not approved refused first), its secrets stored (never shown back) and enabled, its
// config edited through the form generated from its configSchema (the platform's issue beside its field),
// a test call of http-connector with its answer and what was redacted, a removal refused while a run
// waits on the install (the run linked), what an analyst is offered, a change waiting for approval with
// tenant-written markup shown as text, and axe-core's check on each page.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  axe,
  type ConsoleStack,
  SHOWN,
  screenshot,
  sharedConsoleStack,
} from '../support/console.ts';
import { freePort } from '../support/free-port.ts';
import { baseEnv, cleanUpProcesses, removeTempDirs, startVendorDoubleCommand } from '../support/processes.ts';

const SLOW = 120_000;
/** Tenant-written text that would run script if it were ever put into the page as HTML. */
const PROBE = '<img src=x onerror=window.__xss=1>';
const VENDOR_KEY = 'sk-console-1234567890';
const IDV_KEY = 'idv-console-1234';
const IDV_WEBHOOK_SECRET = 'whsec-console-5678';

let stack: ConsoleStack;
let admin: string;
/** The plain vendor double (http-connector's) and the identity-verification double, as host:port. */
let vendorHost: string;
let idvHost: string;

const ok = async (answer: Promise<Answer>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};

/** A free port none of the platform's processes took. */
async function vendorPort(): Promise<number> {
  const taken = new Set(Object.values(stack.env));
  let port = await freePort();
  while (taken.has(String(port))) port = await freePort();
  return port;
}

beforeAll(async () => {
  stack = await sharedConsoleStack('installs');
  const [plain, idv] = [await vendorPort(), await vendorPort()];
  await Promise.all([
    startVendorDoubleCommand(plain, baseEnv({})),
    startVendorDoubleCommand(idv, baseEnv({}), [
      '--idv',
      '--webhook-secret',
      IDV_WEBHOOK_SECRET,
      '--api-key',
      IDV_KEY,
    ]),
  ]);
  vendorHost = `127.0.0.1:${plain}`;
  idvHost = `127.0.0.1:${idv}`;
  admin = await stack.token('admin', 'ana');
  await installVendor();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await cleanUpProcesses();
  await removeTempDirs();
});

/** `vendor`: http-connector against the plain double, sending its API key in a header; enabled. */
async function installVendor(): Promise<void> {
  const versions = await ok(stack.call(admin, 'GET', '/apps/http-connector/versions'));
  const body = {
    versionId: versions.items[0].id,
    config: { baseUrl: `http://${vendorHost}`, auth: { type: 'apiKey', header: 'X-Api-Key' } },
  };
  await ok(
    stack.call(admin, 'POST', '/app-installs', {
      name: 'vendor',
      enabled: false,
      approveHosts: [vendorHost],
      ...body,
    }),
    201,
  );
  await ok(stack.call(admin, 'POST', '/app-installs/vendor/secrets/API_KEY', { value: VENDOR_KEY }));
  await ok(stack.call(admin, 'PUT', '/app-installs/vendor', { ...body, enabled: true }));
}

const main = (page: Page) => page.getByRole('main');
const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

describe('Installs', () => {
  it(
    'installs identity-verification from the catalogue: refused until its host is approved, then on its page',
    async () => {
      const page = await stack.openPage('/apps/installs', 'admin');
      await page.getByRole('link', { name: 'vendor', exact: true }).waitFor();
      const form = region(page, 'Install an app');
      await form.getByLabel('App', { exact: true }).selectOption('identity-verification');
      await form.getByLabel('Install name').fill('idv');
      await form.getByLabel('baseUrl').fill(`http://${idvHost}`);
      // The generated form: the schema's integer with its default, its boolean.
      await form.getByLabel('callbackTimeoutSeconds').waitFor();
      expect(await form.textContent()).toContain('Default: 86400.');
      expect(await form.getByRole('checkbox', { name: 'documentsEnabled' }).isChecked()).toBe(false);
      await screenshot(page, 'installs');
      expect(await axe(page)).toEqual([]);

      // Not ticking the host it would call: the platform's refusal as a sentence.
      const approve = form.getByRole('checkbox', { name: `Approve ${idvHost}` });
      await approve.waitFor();
      await form.getByRole('button', { name: 'Install', exact: true }).click();
      const refusal = form.getByRole('alert').filter({ hasText: 'The app was not installed.' });
      await refusal.waitFor();
      expect(await refusal.textContent()).toContain(idvHost);
      expect(await refusal.textContent()).toMatch(/Request id: \S+/);

      await approve.check();
      await form.getByRole('button', { name: 'Install', exact: true }).click();
      await page.waitForURL('**/console/apps/installs/idv');
      await expect.poll(() => page.textContent('h1'), SHOWN).toBe('Install idv');
      const overview = region(page, 'Overview');
      await expect
        .poll(() => overview.textContent(), SHOWN)
        .toContain('missing secrets: API_KEY, WEBHOOK_SECRET');
      expect(await overview.textContent()).toContain(idvHost);

      // The list shows both, with their health and state.
      await page.goto(`${stack.api}/console/apps/installs?app=identity-verification`);
      const table = page.getByRole('table');
      await table.getByRole('link', { name: 'idv' }).waitFor();
      expect(await table.getByRole('link', { name: 'vendor' }).count()).toBe(0);
      expect(await table.textContent()).toContain('secrets missing');
      await page.close();
    },
    SLOW,
  );

  it(
    'stores the secrets by name (the value never shown again) and enables the install',
    async () => {
      const page = await stack.openPage('/apps/installs/idv', 'admin');
      const secrets = region(page, 'Secrets');
      for (const [name, value] of [
        ['API_KEY', IDV_KEY],
        ['WEBHOOK_SECRET', IDV_WEBHOOK_SECRET],
      ] as const) {
        const input = secrets.getByLabel(`Value for ${name}`);
        await input.fill(value);
        expect(await input.getAttribute('type')).toBe('password');
        await secrets.getByRole('button', { name: `Store ${name}` }).click();
        // Emptied once sent: the page keeps no value.
        expect(await input.inputValue()).toBe('');
        await secrets.getByLabel(`New value for ${name}`).waitFor();
      }
      await expect.poll(() => secrets.textContent(), SHOWN).not.toContain('missing');
      expect(await page.content()).not.toContain(IDV_KEY);
      expect(await page.content()).not.toContain(IDV_WEBHOOK_SECRET);

      await page.getByRole('button', { name: 'Enable install' }).click();
      await page.getByRole('button', { name: 'Disable install' }).waitFor();
      const view = await ok(stack.call(admin, 'GET', '/app-installs/idv'));
      expect(view).toMatchObject({ enabled: true, storedSecrets: ['API_KEY', 'WEBHOOK_SECRET'] });
      await page.close();
    },
    SLOW,
  );

  it(
    'edits the config through the generated form: the platform’s issue shows beside its field, then a valid value saves',
    async () => {
      const page = await stack.openPage('/apps/installs/idv', 'admin');
      const config = region(page, 'Config');
      const timeout = config.getByLabel('callbackTimeoutSeconds');
      await timeout.fill('10');
      await config.getByRole('button', { name: 'Save config' }).click();
      await config.getByRole('alert').filter({ hasText: 'The install was not saved.' }).waitFor();
      expect(await timeout.getAttribute('aria-invalid')).toBe('true');
      // The issue the platform answers for this value, shown where the field describes itself.
      const refused = await stack.call(admin, 'PUT', '/app-installs/idv', {
        versionId: (await ok(stack.call(admin, 'GET', '/app-installs/idv'))).versionId,
        config: { baseUrl: `http://${idvHost}`, callbackTimeoutSeconds: 10 },
      });
      expect(refused.status).toBe(400);
      const issue = refused.body.error.details.issues.find(
        (i: { path: string }) => i.path === '/callbackTimeoutSeconds',
      );
      const describedBy = (await timeout.getAttribute('aria-describedby')) ?? '';
      const issuesId = describedBy.split(' ').find((id) => id.endsWith('-issues')) as string;
      expect(await page.locator(`[id="${issuesId}"]`).textContent()).toContain(issue.message);
      await screenshot(page, 'install');
      expect(await axe(page)).toEqual([]);

      await timeout.fill('120');
      await config.getByRole('button', { name: 'Save config' }).click();
      // Exactly: the earlier refusal's "The install was not saved." holds "saved." too, and may still
      // show while this save is under way (the GET then read the install before the save).
      await config.getByText('Saved.', { exact: true }).waitFor();
      const view = await ok(stack.call(admin, 'GET', '/app-installs/idv'));
      expect(view.config).toEqual({ baseUrl: `http://${idvHost}`, callbackTimeoutSeconds: 120 });
      await page.close();
    },
    SLOW,
  );

  it(
    'makes a test call: input prefilled from the action’s schema, the answer, its log lines and what was redacted; vendor text stays text',
    async () => {
      const page = await stack.openPage('/apps/installs/vendor', 'admin');
      const panel = region(page, 'Test call');
      const input = panel.getByLabel('Input (JSON)');
      await input.waitFor();
      expect(JSON.parse(await input.inputValue())).toEqual({ method: 'GET', path: '/text' });
      await input.fill(JSON.stringify({ method: 'GET', path: '/hello', headers: { 'X-Note': PROBE } }));
      await panel.getByRole('button', { name: 'Send test call' }).click();
      const answer = region(page, 'Answer');
      await answer.waitFor();
      const text = (await answer.textContent()) ?? '';
      expect(text).toContain('success');
      expect(text).toContain('"path": "/hello"');
      expect(text).toContain('"x-api-key": "[secret:API_KEY]"');
      expect(text).toContain(PROBE);
      const redacted = answer.getByRole('table');
      expect(await redacted.getByRole('row').nth(1).textContent()).toBe(
        '[secret:API_KEY]secretAPI_KEYoutput',
      );
      expect(await page.content()).not.toContain(VENDOR_KEY);
      expect(await main(page).locator('img').count()).toBe(0);
      expect(await page.evaluate('window.__xss')).toBeUndefined();
      await screenshot(page, 'test-call');
      expect(await axe(page)).toEqual([]);

      // Not JSON: said beside the input, nothing sent.
      await input.fill('{ method: GET');
      await panel.getByRole('button', { name: 'Send test call' }).click();
      await panel.getByText('This is not valid JSON.').waitFor();
      await page.close();
    },
    SLOW,
  );

  it(
    'refuses to remove an install a run waits on, naming the run as a link to its page',
    async () => {
      const step = {
        id: 'verify',
        type: 'call_app',
        install: 'idv',
        action: 'start_verification',
        inputMapping: { firstName: 'applicant.firstName', lastName: 'applicant.lastName' },
        outputKey: 'verification',
      };
      const decide = {
        id: 'decide',
        type: 'decide',
        branches: [{ when: { path: 'verification.decision', equals: 'approved' }, outcome: 'approve' }],
        otherwise: 'decline',
      };
      await ok(
        stack.call(admin, 'POST', '/workflow-definitions', { key: 'kyc', body: { steps: [step, decide] } }),
        201,
      );
      await ok(stack.call(admin, 'POST', '/workflow-definitions/kyc/publish'));
      const started = await ok(
        stack.call(admin, 'POST', '/workflow-runs', {
          workflow: 'kyc',
          subjectId: 'applicant-1',
          context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
        }),
        201,
      );
      const runId = started.id as string;
      await expect
        .poll(async () => (await stack.call(admin, 'GET', `/workflow-runs/${runId}`)).body.status, {
          timeout: 60_000,
          interval: 100,
        })
        .toBe('waiting_callback');

      const page = await stack.openPage('/apps/installs/idv', 'admin');
      const removal = region(page, 'Remove the install');
      await removal.getByRole('button', { name: 'Remove install' }).click();
      await removal.getByRole('button', { name: 'Yes, remove it' }).click();
      await removal.getByRole('alert').filter({ hasText: 'The install was not removed.' }).waitFor();
      const run = removal.getByRole('link', { name: `Run ${runId}` });
      expect(await run.getAttribute('href')).toBe(`/console/runs/${runId}`);
      expect(await removal.getByRole('button', { name: 'Remove anyway' }).count()).toBe(1);
      expect((await stack.call(admin, 'GET', '/app-installs/idv')).status).toBe(200);
      await page.close();
    },
    SLOW,
  );

  it(
    'offers an analyst no write: the list without "Install an app", an install’s page without a button or a field',
    async () => {
      const page = await stack.openPage('/apps/installs', 'analyst');
      await page.getByRole('link', { name: 'vendor', exact: true }).waitFor();
      expect(await region(page, 'Install an app').count()).toBe(0);

      await page.getByRole('link', { name: 'vendor', exact: true }).click();
      await page.waitForURL('**/console/apps/installs/vendor');
      await region(page, 'Config').getByText(`http://${vendorHost}`).waitFor();
      await region(page, 'Circuit').waitFor();
      expect(await main(page).locator('button, input, textarea, select').count()).toBe(0);
      expect(await region(page, 'Test call').count()).toBe(0);
      expect(await region(page, 'Limits and budgets').count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );
});

describe('A change waiting for approval', () => {
  it(
    'shows what it asks and its comment as text; an analyst may not decide; an admin rejects it',
    async () => {
      await ok(
        stack.call(admin, 'PUT', '/tenants/me/settings', {
          approvals: { required: true, requiredFor: ['app'], fourEyes: false },
          collection: { flowUrl: null },
        }),
      );
      const versions = await ok(stack.call(admin, 'GET', '/apps/http-connector/versions'));
      const held = await ok(
        stack.call(admin, 'POST', '/app-installs', {
          name: 'screening',
          versionId: versions.items[0].id,
          enabled: false,
          config: { baseUrl: 'https://screening.vendor.example' },
          approveHosts: ['screening.vendor.example'],
          comment: PROBE,
        }),
        202,
      );
      const path = `/apps/installs/screening/changes/${held.change.id}`;

      const analyst = await stack.openPage(path, 'analyst');
      const change = region(analyst, 'Waiting for approval');
      await change.getByText(PROBE).waitFor();
      expect(await change.textContent()).toContain('screening.vendor.example');
      expect(await main(analyst).locator('button').count()).toBe(0);
      expect(await main(analyst).locator('img').count()).toBe(0);
      expect(await analyst.evaluate('window.__xss')).toBeUndefined();
      expect(await axe(analyst)).toEqual([]);
      await analyst.close();

      const page = await stack.openPage(path, 'admin');
      await region(page, 'Waiting for approval')
        .getByLabel('Decision comment (optional)')
        .fill('not this vendor');
      await page.getByRole('button', { name: 'Reject change' }).click();
      await region(page, 'Decided: rejected').waitFor();
      expect(await main(page).textContent()).toContain('rejected by');
      expect(await main(page).textContent()).toContain('not this vendor');
      expect(await axe(page)).toEqual([]);
      await page.close();
      await ok(
        stack.call(admin, 'PUT', '/tenants/me/settings', {
          approvals: { required: false, fourEyes: false },
          collection: { flowUrl: null },
        }),
      );
    },
    SLOW,
  );
});
