// The webhooks pages in Debian's Chromium against `platform start` (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true,
// so it delivers to a receiver on loopback): an endpoint created through the page with its secret shown
// once, a refused URL, a test ping, enable and disable, rotation, the event catalogue, a delivery's
// attempts and its retry through the page, what a reader and an analyst are offered, tenant text as text,
// axe-core on each page, and deletion. One platform and one browser for the file.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../outbound-webhooks/receiver.ts';
import { decideOnly } from '../runs/approvals-support.ts';
import {
  type Answer,
  axe,
  type ConsoleStack,
  choose,
  noScriptRan,
  screenshot,
  sharedConsoleStack,
} from '../support/console.ts';
import { cleanUpProcesses, removeTempDirs, run } from '../support/processes.ts';

const SLOW = 120_000;
/** Tenant-written text that would run script if it were ever put into the page as HTML. */
const PROBE = '<img src=x onerror=window.__xss=1>';

let stack: ConsoleStack;
let receiver: Receiver;
let admin: string;
/** The endpoint the page creates (first test), then pinged, rotated, delivered to and deleted. */
let endpointId: string;
let firstSecret: string;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([sharedConsoleStack('console-webhooks'), startReceiver()]);
  admin = await stack.token('admin', 'ana');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await cleanUpProcesses();
  await removeTempDirs();
});

const ok = async (answer: Promise<Answer>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};

const main = (page: Page) => page.getByRole('main');

/** A page signed in with a token of the analyst role granted `webhooks:read` alone: a read-only developer. */
async function openAsReader(path: string): Promise<Page> {
  const minted = await run(
    [
      'token',
      '--tenant',
      stack.tenant,
      '--role',
      'analyst',
      '--permission',
      'webhooks:read',
      '--user',
      'reader',
    ],
    stack.env,
  );
  expect(minted.code, minted.stderr).toBe(0);
  const page = await stack.blankPage();
  await page.goto(`${stack.api}/console${path}#token=${minted.stdout.trim()}`);
  await page.waitForURL((url) => url.hash === '');
  return page;
}

describe('endpoints', () => {
  it(
    'creates an endpoint through the page: its secret shown once with a copy button, gone after a reload; the description shown as text',
    async () => {
      const page = await stack.openPage('/webhooks', 'admin');
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.api });
      await page.getByText('No endpoints yet.').waitFor();
      const form = page.getByRole('region', { name: 'Add an endpoint' });
      await form.getByLabel('URL').fill(`${receiver.url}/hooks`);
      await form.getByLabel('Description (optional)').fill(PROBE);
      await form.getByRole('checkbox', { name: /approval\.requested/ }).check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();

      const shown = page.getByRole('region', { name: /^Endpoint created: / });
      await shown.waitFor();
      expect(await shown.textContent()).toContain('Copy it now: it will not be shown again.');
      firstSecret = (await shown.locator('code.webhook-secret-value').textContent()) ?? '';
      expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      await shown.getByRole('button', { name: 'Copy secret' }).click();
      await shown.getByText('Copied to the clipboard.').waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(firstSecret);
      expect(await axe(page)).toEqual([]);

      const listed = await ok(stack.call(admin, 'GET', '/webhook-endpoints'));
      expect(listed.items).toHaveLength(1);
      expect(listed.items[0]).toMatchObject({
        description: PROBE,
        events: ['approval.requested'],
        enabled: true,
      });
      expect(JSON.stringify(listed)).not.toContain(firstSecret);
      endpointId = listed.items[0].id;
      const table = page.getByRole('region', { name: 'Endpoints' });
      await table.getByRole('cell', { name: PROBE, exact: true }).waitFor();
      await noScriptRan(page);

      await page.reload();
      await table.getByRole('link', { name: `${receiver.url}/hooks` }).waitFor();
      expect(await page.content()).not.toContain('whsec_');
      expect(await page.getByRole('region', { name: /^Endpoint created/ }).count()).toBe(0);
      await screenshot(page, 'webhooks');
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  it(
    'shows a refused URL as the API’s sentence beside the field, and writes nothing',
    async () => {
      const page = await stack.openPage('/webhooks', 'admin');
      const form = page.getByRole('region', { name: 'Add an endpoint' });
      await form.getByLabel('URL').fill('https://hooks.example.com/in#section');
      await form.getByRole('checkbox', { name: /run\.completed/ }).check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      const sentence = 'The URL must not hold a fragment (#…): it is never sent.';
      await form.getByText(sentence).waitFor();
      const url = form.getByLabel('URL');
      expect(await url.getAttribute('aria-invalid')).toBe('true');
      // The sentence describes the field, so a screen reader reads it with the field.
      const described = await url.getAttribute('aria-describedby');
      expect(await page.locator(`[id="${described}"]`).textContent()).toBe(sentence);
      expect(await form.getByRole('alert').textContent()).toMatch(/Not saved\..*Request id:/);
      expect((await ok(stack.call(admin, 'GET', '/webhook-endpoints'))).items).toHaveLength(1);
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  it(
    'sends a test ping and shows its outcome; disables and enables; rotates the secret, shown once',
    async () => {
      const page = await stack.openPage(`/webhooks/endpoints/${endpointId}`, 'admin');
      const details = page.getByRole('region', { name: 'Details' });
      await details.getByText(PROBE, { exact: true }).waitFor();
      await noScriptRan(page);

      const ping = page.getByRole('region', { name: 'Test ping' });
      await ping.getByRole('button', { name: 'Send test ping' }).click();
      await ping.getByText(/^Delivered: the endpoint answered 204 in \d+ ms\.$/).waitFor();
      expect(receiver.received.at(-1)?.headers['x-service-event']).toBe('ping');
      receiver.answer.status = 500;
      await ping.getByRole('button', { name: 'Send test ping' }).click();
      await ping.getByText(/^Not delivered: the endpoint answered 500 \(after \d+ ms\)\.$/).waitFor();
      receiver.answer.status = 204;

      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByRole('button', { name: 'Disable endpoint' }).click();
      await details.getByText(/^Disabled/).waitFor();
      expect((await ok(stack.call(admin, 'GET', `/webhook-endpoints/${endpointId}`))).enabled).toBe(false);
      await settings.getByRole('button', { name: 'Enable endpoint' }).click();
      await details.getByText('Enabled', { exact: true }).waitFor();

      const rotate = page.getByRole('region', { name: 'Signing secret' });
      await rotate.getByRole('button', { name: 'Rotate secret' }).click();
      await rotate.getByRole('button', { name: 'Rotate now' }).click();
      const shown = page.getByRole('region', { name: 'New signing secret' });
      await shown.waitFor();
      const secret = await shown.locator('code.webhook-secret-value').textContent();
      expect(secret).toMatch(/^whsec_/);
      expect(secret).not.toBe(firstSecret);
      expect(await shown.textContent()).toContain('it will not be shown again');
      expect(await axe(page)).toEqual([]);
      await page.reload();
      await details.waitFor();
      expect(await page.content()).not.toContain('whsec_');
      await page.close();
    },
    SLOW,
  );

  it(
    'edits an endpoint: a refusal beside the field, then saved',
    async () => {
      const page = await stack.openPage(`/webhooks/endpoints/${endpointId}`, 'admin');
      const settings = page.getByRole('region', { name: 'Settings' });
      await settings.getByRole('button', { name: 'Edit endpoint' }).click();
      await settings.getByRole('checkbox', { name: /approval\.requested/ }).uncheck();
      await settings.getByRole('button', { name: 'Save endpoint' }).click();
      await settings.getByText(/^Events must NOT have fewer than 1 items/i).waitFor();
      await settings.getByRole('checkbox', { name: /approval\.requested/ }).check();
      await settings.getByRole('checkbox', { name: /approval\.decided/ }).check();
      await settings.getByRole('button', { name: 'Save endpoint' }).click();
      const details = page.getByRole('region', { name: 'Details' });
      await details.getByText('approval.decided').waitFor();
      expect((await ok(stack.call(admin, 'GET', `/webhook-endpoints/${endpointId}`))).events).toEqual([
        'approval.requested',
        'approval.decided',
      ]);
      await page.close();
    },
    SLOW,
  );
});

describe('the event catalogue', () => {
  it(
    'lists each event type with its description and sample body as text',
    async () => {
      const page = await stack.openPage('/webhooks/events', 'admin');
      const completed = page.getByRole('region', { name: 'run.completed' });
      await completed.waitFor();
      const sample = await completed.locator('pre').textContent();
      expect(JSON.parse(sample ?? '')).toMatchObject({
        type: 'run.completed',
        resource: { type: 'workflow_run' },
      });
      const catalogue = await ok(stack.call(admin, 'GET', '/webhook-events'));
      expect(await page.locator('main section').count()).toBe(catalogue.items.length);
      const ping = page.getByRole('region', { name: 'ping', exact: true });
      expect(await ping.textContent()).toContain('The test ping only');
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );
});

describe('deliveries', () => {
  it(
    'shows a failed delivery’s attempts (the receiver’s answer as text), retries it through the page, and follows it to delivered',
    async () => {
      // The receiver fails the first attempt with a body holding the probe.
      receiver.answer.status = 500;
      receiver.answer.body = `down for maintenance ${PROBE}`;
      // The cheapest event an endpoint can take: a definition's publish held for approval.
      await ok(
        stack.call(admin, 'PUT', '/tenants/me/settings', {
          approvals: { required: true, requiredFor: ['definitions'], fourEyes: false },
          collection: { flowUrl: null },
        }),
      );
      await ok(
        stack.call(admin, 'POST', '/workflow-definitions', { key: 'hooked', body: decideOnly() }),
        201,
      );
      await ok(stack.call(admin, 'POST', '/workflow-definitions/hooked/publish'), 202);
      // Wait (on the API) for the worker's first attempt: the trail is read after ten seconds' hold.
      await expect
        .poll(
          async () =>
            (await ok(stack.call(admin, 'GET', `/webhook-deliveries?endpointId=${endpointId}`))).items[0]
              ?.status,
          { timeout: 60_000, interval: 500 },
        )
        .toBe('failed');
      receiver.answer.status = 200;
      receiver.answer.body = 'ok';

      const page = await stack.openPage(`/webhooks/deliveries?endpointId=${endpointId}`, 'admin');
      const list = page.getByRole('region', { name: 'Deliveries' });
      const row = list.getByRole('row', { name: /approval\.requested/ });
      await row.getByText('failed', { exact: true }).waitFor();
      expect(await row.textContent()).toContain('the endpoint answered 500');
      // The endpoint filter shows the endpoint the URL names.
      expect(await page.getByLabel('Endpoint').inputValue()).toBe(endpointId);

      await row.getByRole('link', { name: /^Show attempts/ }).click();
      await page.waitForURL(/[?&]delivery=/);
      const attempts = page.getByRole('region', { name: /^Attempts of the approval\.requested delivery/ });
      const first = attempts.getByRole('row', { name: /the endpoint answered 500/ });
      await first.waitFor();
      expect(await first.locator('pre').textContent()).toBe(`down for maintenance ${PROBE}`);
      await noScriptRan(page);
      expect(await axe(page)).toEqual([]);

      // Retried through the page; the page follows the delivery by itself (it was still to be tried).
      await attempts.getByRole('button', { name: /^Retry now/ }).click();
      await attempts.getByText('Retry asked: the delivery is due now.').waitFor();
      await row.getByText('delivered', { exact: true }).waitFor({ timeout: 60_000 });
      const second = attempts.getByRole('row', { name: /^2 / });
      await second.waitFor();
      expect(await second.textContent()).toContain('200');
      expect(await attempts.getByRole('button', { name: /^Retry now/ }).count()).toBe(0);
      await screenshot(page, 'deliveries');
      expect(await axe(page)).toEqual([]);

      // Filters go to the URL: no exhausted delivery; the delivered one under delivered.
      await choose(page.getByRole('checkbox', { name: 'exhausted' }));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/status=exhausted/);
      await list.getByText('No deliveries match.').waitFor();
      await page.getByRole('checkbox', { name: 'exhausted' }).uncheck();
      await choose(page.getByRole('checkbox', { name: 'delivered' }));
      await page.getByLabel('Event').selectOption('approval.requested');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/status=delivered.*event=approval\.requested/);
      await row.getByText('delivered', { exact: true }).waitFor();
      await page.close();
    },
    SLOW,
  );
});

describe('what is offered without webhooks:write', () => {
  it(
    'a reader (webhooks:read alone) sees endpoints and deliveries with no write control, and the receiver’s answers redacted',
    async () => {
      const page = await openAsReader('/webhooks');
      await page
        .getByRole('region', { name: 'Endpoints' })
        .getByRole('link', { name: `${receiver.url}/hooks` })
        .waitFor();
      expect(await page.getByRole('region', { name: 'Add an endpoint' }).count()).toBe(0);
      expect(await main(page).getByRole('button').count()).toBe(0);
      expect(await axe(page)).toEqual([]);

      await page.getByRole('link', { name: `${receiver.url}/hooks` }).click();
      await page.getByRole('region', { name: 'Details' }).waitFor();
      expect(await main(page).getByRole('button').count()).toBe(0);
      for (const name of ['Settings', 'Test ping', 'Signing secret', 'Delete']) {
        expect(await page.getByRole('region', { name }).count()).toBe(0);
      }

      await page.getByRole('link', { name: 'Its deliveries' }).click();
      const list = page.getByRole('region', { name: 'Deliveries' });
      await list
        .getByRole('link', { name: /^Show attempts/ })
        .first()
        .click();
      const attempts = page.getByRole('region', { name: /^Attempts of the/ });
      await attempts.getByText('[redacted]').first().waitFor();
      expect(await attempts.textContent()).not.toContain('down for maintenance');
      expect(await main(page).getByRole('button', { name: /Retry/ }).count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  it(
    'an analyst (no webhooks permission) is told so in a sentence, with no controls',
    async () => {
      const page = await stack.openPage('/webhooks', 'analyst');
      const refusal = page.getByRole('region', { name: 'Endpoints' }).getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.textContent()).toMatch(/^You are not allowed to do this: .*Request id:/);
      expect(await main(page).getByRole('button').count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
    SLOW,
  );
});

describe('deleting', () => {
  it(
    'deletes an endpoint after a confirmation; its deliveries go with it',
    async () => {
      const page = await stack.openPage(`/webhooks/endpoints/${endpointId}`, 'admin');
      const remove = page.getByRole('region', { name: 'Delete' });
      await remove.getByRole('button', { name: 'Delete endpoint' }).click();
      await remove.getByRole('button', { name: 'Keep it' }).click();
      expect((await ok(stack.call(admin, 'GET', '/webhook-endpoints'))).items).toHaveLength(1);
      await remove.getByRole('button', { name: 'Delete endpoint' }).click();
      expect(await remove.textContent()).toContain('Its deliveries and their attempts go with it');
      await remove.getByRole('button', { name: 'Delete for good' }).click();
      await page.waitForURL(/\/console\/webhooks$/);
      await page.getByText('No endpoints yet.').waitFor();
      expect((await ok(stack.call(admin, 'GET', '/webhook-deliveries'))).total).toBe(0);
      await page.close();
    },
    SLOW,
  );
});
