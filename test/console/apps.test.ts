// The apps and approvals pages in Debian's Chromium against `platform start`: the catalogue, an upload and
// its publish through the page (waiting for approval under four-eyes), the requester's own approval
// refused as a sentence and another administrator's accepted, upload refusals with the manifest's path,
// a version's manifest and provenance, the definitions' approvals and install changes queues with their
// decide buttons, what an analyst is offered, tenant-written text shown as text, and axe-core's check.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideOnly } from '../runs/approvals-support.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import {
  type Answer,
  axe,
  type ConsoleStack,
  choose,
  noScriptRan,
  screenshot,
  sharedConsoleStack,
} from '../support/console.ts';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';

const SLOW = 120_000;
/** Tenant-written text that would run script if it were ever put into the page as HTML. */
const PROBE = '<img src=x onerror=window.__xss=1>';
const ADA = 'Ada';
const BOB = 'Bob';

let stack: ConsoleStack;
let ada: string;
/** The module uploaded through the page: the echo fixture as kyc-check 1.0.0, its title the probe. */
let kycCheck: Uint8Array;
/** The definition approval Ada's publish of the workflow opened. */
let approvalId: string;

beforeAll(async () => {
  [stack, kycCheck] = await Promise.all([
    sharedConsoleStack('console-apps'),
    buildFixture('echo', {
      '"name":"echo","version":"1.0.0"': `"name":"kyc-check","version":"1.0.0","title":"${PROBE}","description":"Checks a person's documents"`,
    }),
  ]);
  ada = await stack.token('admin', ADA);
  approvalId = await setTheScene();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await cleanUpProcesses();
  await removeTempDirs();
});

const ok = async (answer: Promise<Answer>, status: number) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};

/**
 * An install of http-connector (`screening`) made while nothing needs approval; then approvals required
 * for apps and definitions under four-eyes; then, as Ada, an install `kyc` held as a change and a workflow
 * publish held as a definition approval.
 */
async function setTheScene(): Promise<string> {
  await ok(holdInstall('screening'), 201); // nothing needs approval yet: it applies
  await ok(
    stack.call(ada, 'PUT', '/tenants/me/settings', {
      approvals: { required: true, requiredFor: ['app', 'definitions'], fourEyes: true },
      collection: { flowUrl: null },
    }),
    200,
  );
  await ok(holdInstall('kyc'), 202);
  await ok(stack.call(ada, 'POST', '/workflow-definitions', { key: 'onboarding', body: decideOnly() }), 201);
  const held = await ok(stack.call(ada, 'POST', '/workflow-definitions/onboarding/publish'), 202);
  return held.approval.id as string;
}

/** As Ada, an install of http-connector adding a host: held as a change while approvals are required. */
async function holdInstall(name: string): Promise<Answer> {
  const versions = await ok(stack.call(ada, 'GET', '/apps/http-connector/versions'), 200);
  return stack.call(ada, 'POST', '/app-installs', {
    name,
    versionId: versions.items[0].id,
    enabled: false,
    config: { baseUrl: 'https://vendor.example' },
    approveHosts: ['vendor.example'],
  });
}

/** What the page shows, polled until it matches (a page's first answer may take seconds on a busy machine). */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000 });
const region = (page: Page, name: string) => page.getByRole('region', { name });

describe('the catalogue', () => {
  it(
    'lists the apps with their publisher, latest version, versions and installs, each linking to its page',
    async () => {
      const page = await stack.openPage('/apps', { role: 'admin', user: ADA });
      const catalogue = region(page, 'Catalogue');
      const row = catalogue.getByRole('row').filter({ hasText: 'http-connector' });
      await row.waitFor();
      expect(await row.textContent()).toContain('Platform');
      await eventually(() => row.getByRole('link', { name: 'screening' }).getAttribute('href')).toBe(
        '/console/apps/installs/screening',
      );
      await row.getByRole('link', { name: '1.0.0' }).waitFor();
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'apps');

      await row.getByRole('link', { name: 'http-connector', exact: true }).click();
      await eventually(() => page.textContent('h1')).toBe('http-connector');
      await region(page, 'Installs').getByRole('link', { name: 'screening' }).waitFor();
      await region(page, 'Versions').getByRole('link', { name: '1.0.0' }).click();
      await eventually(() => page.textContent('h1')).toBe('http-connector 1.0.0');
      expect(await region(page, 'Provenance, blocks and review').textContent()).toContain(
        "Trusted: shipped with the platform's release catalogue.",
      );
      expect(await axe(page)).toEqual([]);
    },
    SLOW,
  );
});

describe('uploading and publishing', () => {
  it(
    'uploads a module and publishes it: under four-eyes it waits; the title stays text',
    async () => {
      const page = await stack.openPage('/apps', { role: 'admin', user: ADA });
      const upload = region(page, 'Upload a module');
      await upload.getByLabel('Module (.wasm)').setInputFiles({
        name: 'kyc-check-1.0.0.wasm',
        mimeType: 'application/wasm',
        buffer: Buffer.from(kycCheck),
      });
      await upload.getByRole('button', { name: 'Upload' }).click();
      await upload.getByRole('link', { name: 'kyc-check 1.0.0' }).waitFor();
      expect(await upload.textContent()).toContain(`(${PROBE}); it is not published yet.`);

      await upload.getByRole('button', { name: 'Publish kyc-check 1.0.0' }).click();
      await upload.getByText('kyc-check 1.0.0 waits for approval').waitFor();
      expect(await axe(page)).toEqual([]);
      await noScriptRan(page);
    },
    SLOW,
  );

  it(
    'says why a module is refused, with the manifest path the platform named',
    async () => {
      const page = await stack.openPage('/apps', { role: 'admin', user: ADA });
      const upload = region(page, 'Upload a module');
      const input = upload.getByLabel('Module (.wasm)');
      await input.setInputFiles({
        name: 'notes.wasm',
        mimeType: 'application/wasm',
        buffer: Buffer.from('notes'),
      });
      await upload.getByRole('button', { name: 'Upload' }).click();
      const refusal = upload.getByRole('alert');
      await eventually(() => refusal.textContent()).toContain('The file is not a WebAssembly module.');
      expect(await refusal.textContent()).toContain('Not a WebAssembly module');
      expect(await refusal.textContent()).toMatch(/Request id: \S+/);

      const coloured = await buildFixture('echo', {
        '"name":"echo","version":"1.0.0"': '"name":"coloured","version":"1.0.0","colour":"red"',
      });
      await input.setInputFiles({
        name: 'coloured.wasm',
        mimeType: 'application/wasm',
        buffer: Buffer.from(coloured),
      });
      await upload.getByRole('button', { name: 'Upload' }).click();
      await eventually(() => refusal.textContent()).toContain(
        'The module is not one the platform runs (at manifest.colour).',
      );
      expect(await axe(page)).toEqual([]);
    },
    SLOW,
  );
});

describe('publish requests', () => {
  it(
    "refuses the requester's own approval with a sentence; another administrator's approval publishes",
    async () => {
      const page = await stack.openPage('/apps/approvals', { role: 'admin', user: ADA });
      const requests = region(page, 'Waiting for approval');
      const row = requests.getByRole('row').filter({ hasText: 'kyc-check 1.0.0' });
      await row.getByRole('button', { name: 'Approve kyc-check 1.0.0' }).click();
      await eventually(() => row.getByRole('alert').textContent()).toContain(
        'Under four-eyes the requester may not approve their own request.',
      );
      expect(await axe(page)).toEqual([]);

      const other = await stack.openPage('/apps/approvals', { role: 'admin', user: BOB });
      const otherRow = region(other, 'Waiting for approval')
        .getByRole('row')
        .filter({ hasText: 'kyc-check 1.0.0' });
      await otherRow.getByLabel('Comment on kyc-check 1.0.0 (optional)').fill(PROBE);
      await otherRow.getByRole('button', { name: 'Approve kyc-check 1.0.0' }).click();
      await other.getByText('kyc-check 1.0.0 was approved and is published.').waitFor();
      await region(other, 'Waiting for approval').getByText('No version waits for approval.').waitFor();

      await choose(other.getByRole('radio', { name: 'Decided' }));
      expect(new URL(other.url()).searchParams.get('status')).toBe('decided');
      const decided = region(other, 'Decided').getByRole('row').filter({ hasText: 'kyc-check 1.0.0' });
      await eventually(() => decided.textContent()).toContain(PROBE);
      expect(await decided.textContent()).toContain('approved');
      expect(await axe(other)).toEqual([]);
      await noScriptRan(other);
    },
    SLOW,
  );

  it(
    'shows the published version with its manifest and provenance; its title stays text',
    async () => {
      const { items } = await ok(stack.call(ada, 'GET', '/apps/kyc-check'), 200);
      const page = await stack.openPage(`/apps/kyc-check/versions/${items[0].id}`, {
        role: 'admin',
        user: ADA,
      });
      await eventually(() => page.textContent('h1')).toBe('kyc-check 1.0.0');
      expect(await page.textContent('main')).toContain(PROBE);
      expect(await region(page, 'About').textContent()).toContain('published');
      expect(await region(page, 'Provenance, blocks and review').textContent()).toContain('Not signed');
      const actions = region(page, 'Actions');
      expect(await actions.textContent()).toContain('Input schema');
      expect(await actions.locator('pre').first().textContent()).toContain('"type": "object"');
      expect(await region(page, 'Hosts and secrets').textContent()).toContain('API_KEY');
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'app-version');
      await noScriptRan(page);
    },
    SLOW,
  );
});

describe('approvals', () => {
  it(
    "decides definitions' approvals and install changes from their queues; four-eyes refusals as sentences",
    async () => {
      const workflow = await stack.openPage('/workflows/onboarding/versions/1', { role: 'admin', user: ADA });
      await eventually(() => workflow.textContent('h1')).toBe('Workflow onboarding, version 1');
      const waiting = region(workflow, 'Waiting for approval');
      await waiting.getByRole('button', { name: 'Approve workflow onboarding version 1' }).click();
      await eventually(() => waiting.getByRole('alert').textContent()).toContain(
        'Under four-eyes the requester may not approve their own request; withdraw it instead.',
      );
      expect(await region(workflow, 'Version 1 (draft)').textContent()).toContain('"type": "decide"');
      expect(await axe(workflow)).toEqual([]);

      const page = await stack.openPage('/approvals', { role: 'admin', user: BOB });
      const definitions = region(page, "Definitions' approvals");
      const changes = region(page, 'Install changes');
      const change = changes.getByRole('row').filter({ hasText: 'kyc' });
      await eventually(() => change.getByRole('link').getAttribute('href')).toMatch(
        /^\/console\/apps\/installs\/kyc\/changes\/[0-9a-f-]{36}$/,
      );
      const request = definitions.getByRole('row').filter({ hasText: 'workflow onboarding version 1' });
      await request.getByRole('button', { name: 'Approve workflow onboarding version 1' }).waitFor();
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'approvals');

      await request.getByLabel('Comment on workflow onboarding version 1 (optional)').fill(PROBE);
      await request.getByRole('button', { name: 'Reject workflow onboarding version 1' }).click();
      await definitions.getByText('No definition waits for approval.').waitFor();
      await change.getByRole('button', { name: 'Approve the change to kyc' }).click();
      await changes.getByText('No install change waits for approval.').waitFor();
      const install = await ok(stack.call(ada, 'GET', '/app-installs/kyc'), 200);
      expect(install.name).toBe('kyc');

      await definitions.getByLabel('Status').selectOption('rejected');
      expect(new URL(page.url()).searchParams.get('status')).toBe('rejected');
      const rejected = definitions.getByRole('row').filter({ hasText: 'workflow onboarding version 1' });
      await eventually(() => rejected.textContent()).toContain(PROBE);
      await noScriptRan(page);

      await rejected.getByRole('link', { name: 'Open request' }).click();
      await eventually(() => page.textContent('h1')).toBe('Approval of workflow onboarding version 1');
      const facts = await region(page, 'Request').textContent();
      expect(facts).toContain('rejected');
      expect(facts).toContain(PROBE);
      expect(new URL(page.url()).pathname).toBe(`/console/approvals/definitions/${approvalId}`);
      expect(await axe(page)).toEqual([]);
      await noScriptRan(page);
    },
    SLOW,
  );
});

describe('an analyst', () => {
  it(
    'is offered no upload, publish or decide buttons, and a refused list says why',
    async () => {
      await ok(holdInstall('kyc-backup'), 202);

      const apps = await stack.openPage('/apps', 'analyst');
      await region(apps, 'Catalogue').getByRole('link', { name: 'kyc-check' }).waitFor();
      expect(await apps.getByRole('region', { name: 'Upload a module' }).count()).toBe(0);
      expect(await apps.getByRole('button').filter({ hasNotText: 'Sign out' }).count()).toBe(0);
      expect(await axe(apps)).toEqual([]);

      const approvals = await stack.openPage('/approvals', 'analyst');
      await eventually(() =>
        region(approvals, "Definitions' approvals").getByRole('alert').textContent(),
      ).toContain('You are not allowed to do this');
      const change = region(approvals, 'Install changes').getByRole('row').filter({ hasText: 'kyc-backup' });
      await change.getByText('waiting').waitFor();
      expect(await approvals.getByRole('button', { name: /Approve|Reject|Withdraw/ }).count()).toBe(0);
      expect(await axe(approvals)).toEqual([]);

      const requests = await stack.openPage('/apps/approvals', 'analyst');
      await region(requests, 'Waiting for approval').getByText('No version waits for approval.').waitFor();
      expect(await requests.getByRole('button', { name: /Approve|Reject/ }).count()).toBe(0);
    },
    SLOW,
  );
});
