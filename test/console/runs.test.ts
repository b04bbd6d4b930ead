// The runs, run, vendor sessions and usage pages in Debian's Chromium against `platform start`: the
// identity-verification app installed against its vendor double (`app vendor-double --idv`), runs of a
// workflow waiting on its vendor sessions, one completed and one failed by the double's webhooks, one
// with a subject that would run script if it were ever HTML; an operator's quota reached. Then the pages
// as an admin and as an analyst would use them. One platform, one browser, one vendor double for the file.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KYC_WORKFLOW } from '../e2e/idv-install.ts';
import {
  type Answer,
  axe,
  type ConsoleStack,
  noScriptRan,
  rowsOf,
  screenshot,
  sharedConsoleStack,
  shown,
} from '../support/console.ts';
import { freePort } from '../support/free-port.ts';
import {
  baseEnv,
  cleanUpProcesses,
  OPS_BIN,
  removeTempDirs,
  run,
  signal,
  startVendorDoubleCommand,
  type VendorProcess,
} from '../support/processes.ts';

const SLOW = 120_000;
/** Tenant-written text that would run script if it were ever put into the page as HTML. */
const PROBE = '<img src=x onerror=window.__xss=1>';
const API_KEY = 'idv-console-1234';
const WEBHOOK_SECRET = 'whsec-console-5678';

let stack: ConsoleStack;
let vendor: VendorProcess;
let admin: string;
/** Runs by what they are for: waiting (to cancel), waiting (subject PROBE), completed, failed. */
const runs = { toCancel: '', probe: '', completed: '', failed: '' };
/** The vendor sessions of the completed and the failed run, and of the run left waiting. */
const sessions = { completed: '', failed: '', probe: '' };

beforeAll(async () => {
  stack = await sharedConsoleStack('console-runs');
  const port = await freePort();
  vendor = await startVendorDoubleCommand(port, baseEnv({}), [
    '--idv',
    '--webhook-secret',
    WEBHOOK_SECRET,
    '--api-key',
    API_KEY,
  ]);
  await setTheScene(`127.0.0.1:${port}`);
}, 240_000);

afterAll(async () => {
  if (vendor) signal(vendor.child, 'SIGTERM');
  await stack?.stop();
  await cleanUpProcesses();
  await removeTempDirs();
});

const ok = async (answer: Promise<Answer>, status = 200) => {
  const { status: got, body } = await answer;
  expect(got, JSON.stringify(body)).toBe(status);
  return body;
};

/** The run once `done` holds for it (polled through the API; nothing sleeps; also in beforeAll). */
async function runWhen(id: string, done: (status: string) => boolean) {
  return vi.waitUntil(
    async () => {
      const { body } = await stack.call(admin, 'GET', `/workflow-runs/${id}`);
      return done(body.status) ? body : false;
    },
    { timeout: 60_000, interval: 100 },
  );
}

/** A run of `kyc` on `subjectId`, once it waits on its vendor session: its id and the session's. */
async function waitingRun(subjectId: string) {
  const started = await ok(
    stack.call(admin, 'POST', '/workflow-runs', {
      workflow: 'kyc',
      subjectId,
      context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
    }),
    201,
  );
  const waiting = await runWhen(started.id, (status) => status !== 'running');
  expect(waiting.status, JSON.stringify(waiting)).toBe('waiting_callback');
  return { runId: started.id as string, externalId: waiting.context.verificationExternalId as string };
}

/** The double's webhook for its session `externalId` with `verdict`; the platform's session id. */
async function decide(host: string, externalId: string, verdict: Record<string, unknown>) {
  const response = await fetch(`http://${host}/__double/sessions/${externalId}/decide`, {
    method: 'POST',
    body: JSON.stringify(verdict),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.platform.body.callbackId as string;
}

async function setTheScene(host: string) {
  admin = await stack.token('admin', 'ana');
  const versions = await ok(stack.call(admin, 'GET', '/apps/identity-verification/versions'));
  const versionId = versions.items[0].id;
  const config = { baseUrl: `http://${host}` };
  await ok(
    stack.call(admin, 'POST', '/app-installs', {
      name: 'idv',
      versionId,
      enabled: false,
      config,
      approveHosts: [host],
    }),
    201,
  );
  for (const [secret, value] of [
    ['API_KEY', API_KEY],
    ['WEBHOOK_SECRET', WEBHOOK_SECRET],
  ]) {
    await ok(stack.call(admin, 'POST', `/app-installs/idv/secrets/${secret}`, { value }));
  }
  await ok(stack.call(admin, 'PUT', '/app-installs/idv', { versionId, enabled: true, config }));
  await ok(stack.call(admin, 'POST', '/workflow-definitions', { key: 'kyc', body: KYC_WORKFLOW }), 201);
  await ok(stack.call(admin, 'POST', '/workflow-definitions/kyc/publish'));

  const completed = await waitingRun('applicant-2');
  runs.completed = completed.runId;
  sessions.completed = await decide(host, completed.externalId, { decision: 'approved' });
  expect((await runWhen(runs.completed, (s) => s === 'completed')).status).toBe('completed');

  const failed = await waitingRun('applicant-2');
  runs.failed = failed.runId;
  // The vendor's own words, which the session's error keeps: tenant-facing text from outside.
  sessions.failed = await decide(host, failed.externalId, { status: 'error', error: PROBE });
  expect((await runWhen(runs.failed, (s) => s === 'failed')).status).toBe('failed');

  runs.toCancel = (await waitingRun('applicant-1')).runId;
  runs.probe = (await waitingRun(PROBE)).runId;
  const open = await ok(stack.call(admin, 'GET', `/app-callbacks?workflowRunId=${runs.probe}`));
  sessions.probe = open.items[0].id;

  // The operator's quotas: one with room, one the runs' vendor requests reached.
  for (const quota of [
    ['calls', 'month', '1000'],
    ['http_requests', 'day', '1'],
  ]) {
    const set = await run(['tenants', 'quota', stack.tenant, ...quota, '--by', 'grace'], stack.env, {
      bin: OPS_BIN,
    });
    expect(set.code, set.stderr).toBe(0);
  }
}

/** What the test reads of a canvas (the test's types have no DOM). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
}

describe('Runs', () => {
  it(
    'filters by status through the page (the URL keeps it), pages by the API’s limit and offset, shows a subject as text',
    async () => {
      const page = await stack.openPage('/runs', 'admin');
      const list = rowsOf(page, 'Runs, newest first');
      await shown(() => list.count()).toBe(4);
      await shown(() => page.getByRole('cell', { name: PROBE }).count()).toBe(1);
      await noScriptRan(page);

      await page.getByLabel('Status').selectOption('waiting_callback');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === 'waiting_callback');
      await shown(() => list.count()).toBe(2);
      expect(await list.locator('td:nth-child(4)').allTextContents()).toEqual([
        'waiting on a vendor',
        'waiting on a vendor',
      ]);
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'runs');

      // Deep-linked: a subject and a page of one; the total is the API's, the rest is never read.
      await page.goto(`${stack.api}/console/runs?subjectId=applicant-2&limit=1`);
      await shown(() => list.count()).toBe(1);
      const pager = page.getByRole('navigation', { name: 'Pages of runs' });
      await shown(() => pager.textContent()).toContain('1–1 of 2');
      await pager.getByRole('link', { name: 'Next' }).click();
      await page.waitForURL((url) => url.searchParams.get('offset') === '1');
      await shown(() => list.first().textContent()).toContain(runs.completed);
      expect(await page.getByLabel('Subject').inputValue()).toBe('applicant-2');
      await page.close();
    },
    SLOW,
  );
});

describe('a run’s page', () => {
  it(
    'shows the steps as a timeline, each attempt with its input, the vendor session it waited on and the runs on its subject; an ended run offers no cancel and says why',
    async () => {
      const page = await stack.openPage(`/runs/${runs.completed}`, 'admin');
      const steps = rowsOf(page, /start, end, duration and outcome/);
      await shown(() => steps.count()).toBe(2);
      expect(await steps.nth(0).textContent()).toMatch(/^verify call_appcompleted1/);
      expect(await steps.nth(1).textContent()).toMatch(/^decide decidecompleted0/);
      expect(await steps.locator('svg.bar').count()).toBe(2);

      const attempts = rowsOf(page, /Every attempt of the run’s steps/);
      await shown(() => attempts.count()).toBe(1);
      expect(await attempts.first().textContent()).toContain('idv · start_verification');
      await attempts.first().getByText('Input').click();
      expect(await attempts.first().locator('pre').first().textContent()).toContain('Lovelace');

      const session = page.getByRole('table', { name: 'Sessions the run waits or waited on' });
      await shown(() => session.locator('tbody tr').count()).toBe(1);
      expect(await session.getByRole('link').getAttribute('href')).toBe(
        `/console/vendor-sessions?session=${sessions.completed}`,
      );
      const related = rowsOf(page, 'The latest other runs on the same subject');
      await shown(() => related.count()).toBe(1);
      expect(await related.textContent()).toContain(runs.failed);

      expect(await page.textContent('main')).toContain(
        'This run has ended (completed): it can no longer be cancelled.',
      );
      expect(await page.getByRole('button', { name: /Cancel run/ }).count()).toBe(0);
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'run');
      await page.close();
    },
    SLOW,
  );

  it(
    'a failed run shows its error; cancelling a waiting run asks first, then the page shows it cancelled',
    async () => {
      const failed = await stack.openPage(`/runs/${runs.failed}`, 'admin');
      await shown(() => failed.locator('.run-error').first().textContent()).toContain('AppCallbackFailed');
      await failed.close();

      const page = await stack.openPage(`/runs/${runs.toCancel}`, 'admin');
      await shown(() => page.locator('dd .status').first().textContent()).toBe('waiting on a vendor');
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      await page.getByRole('button', { name: 'Keep it' }).click();
      expect((await stack.call(admin, 'GET', `/workflow-runs/${runs.toCancel}`)).body.status).toBe(
        'waiting_callback',
      );
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      expect(await axe(page)).toEqual([]);
      await page.getByRole('button', { name: 'Yes, cancel the run' }).click();
      await page.getByText('The run was cancelled.').waitFor();
      await shown(() => page.locator('dd .status').first().textContent()).toBe('cancelled');
      expect((await stack.call(admin, 'GET', `/workflow-runs/${runs.toCancel}`)).body.status).toBe(
        'cancelled',
      );
      // Its session failed with the cancel, as the run's sessions table now says.
      await shown(() => rowsOf(page, 'Sessions the run waits or waited on').first().textContent()).toContain(
        'failed',
      );
      await page.close();
    },
    SLOW,
  );

  it(
    'an analyst sees the texts redacted and no cancel button, even on a waiting run',
    async () => {
      const page = await stack.openPage(`/runs/${runs.completed}`, 'analyst');
      const attempts = rowsOf(page, /Every attempt of the run’s steps/);
      await shown(() => attempts.count()).toBe(1);
      // The input withheld; the pending attempt had no output to withhold.
      expect(await attempts.first().locator('.redacted').allTextContents()).toEqual(['[redacted]']);
      expect(await page.textContent('main')).toContain('your role does not hold runs:context');
      expect(await page.textContent('main')).not.toContain('Lovelace');
      expect(await axe(page)).toEqual([]);

      await page.goto(`${stack.api}/console/runs/${runs.probe}`);
      await shown(() => page.locator('dd .status').first().textContent()).toBe('waiting on a vendor');
      expect(
        await page
          .getByRole('button')
          .filter({ hasText: /cancel/i })
          .count(),
      ).toBe(0);
      await noScriptRan(page);
      // The platform refuses an analyst's cancel too (the page never offers it).
      expect(
        (await stack.call(await stack.token('analyst'), 'POST', `/workflow-runs/${runs.probe}/cancel`))
          .status,
      ).toBe(403);
      await page.close();
    },
    SLOW,
  );
});

describe('Vendor sessions', () => {
  it(
    'lists the waiting session by state, opens a session with the webhooks it received and its run; vendor text stays text',
    async () => {
      const page = await stack.openPage('/vendor-sessions', 'admin');
      const list = rowsOf(page, 'Vendor sessions, newest first');
      await shown(() => list.count()).toBe(4);
      await page.getByLabel('State').selectOption('pending');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === 'pending');
      await shown(() => list.count()).toBe(1);
      await list.first().getByRole('link', { name: 'idv · start_verification' }).click();
      await page.waitForURL((url) => url.searchParams.get('session') === sessions.probe);
      const details = page.getByRole('region', { name: /^Session idv/ });
      await shown(() => details.textContent()).toContain('No webhook has come for this session yet.');
      expect(await details.getByRole('link', { name: /^Run / }).getAttribute('href')).toBe(
        `/console/runs/${runs.probe}`,
      );
      expect(await axe(page)).toEqual([]);

      await page.goto(`${stack.api}/console/vendor-sessions?session=${sessions.completed}`);
      const events = rowsOf(page, /The vendor’s webhooks for this session/);
      await shown(() => events.count()).toBe(1);
      expect(await events.first().textContent()).toContain('completed the session');
      await screenshot(page, 'vendor-sessions');

      await page.goto(`${stack.api}/console/vendor-sessions?session=${sessions.failed}`);
      await shown(() => page.locator('.run-error').textContent()).toContain(PROBE);
      await noScriptRan(page);
      await page.close();
    },
    SLOW,
  );

  it(
    'a session that does not exist is a sentence with the request id; an analyst reads its texts redacted',
    async () => {
      const page = await stack.openPage(
        '/vendor-sessions?session=0190d5e2-0000-7000-8000-000000000000',
        'analyst',
      );
      const alert = page.getByRole('region', { name: /^Session/ }).getByRole('alert');
      await shown(() => alert.textContent()).toMatch(/^Not found: .*\.Request id: \S+/);
      await page.goto(`${stack.api}/console/vendor-sessions?session=${sessions.failed}`);
      await shown(() => page.locator('.run-error').textContent()).toBe('[redacted]');
      expect(await page.textContent('main')).not.toContain(PROBE);
      await page.close();
    },
    SLOW,
  );
});

describe('Usage', () => {
  it(
    'draws the month per install and day by day with Chart.js under the CSP, with tables beside; the quotas show use and which is reached',
    async () => {
      const page = await stack.blankPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) refused.push(message.text());
      });
      await page.goto(await stack.signInLink({ role: 'admin', page: '/usage' }));
      const installs = rowsOf(page, /^Use per install in/);
      await shown(() => installs.count()).toBe(1);
      const row = await installs.first().textContent();
      expect(row).toMatch(/^idv · identity-verification4\d+20none$/);
      const chart = page.getByRole('img', {
        name: /^Use per install in \d{4}-\d{2}\. Calls: idv 4\. HTTP requests: idv \d+\. Vendor webhooks: idv 2\./,
      });
      await chart.waitFor();
      // The canvas is drawn: some pixels are not blank.
      expect(
        await chart.evaluate((element) => {
          const canvas = element as unknown as Canvas;
          const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
          return Array.from(data).some((value) => value !== 0);
        }),
      ).toBe(true);
      const days = rowsOf(page, /^Days of .* with use, all installs/);
      await shown(() => days.count()).toBe(1);
      await page.getByRole('img', { name: /^Use per day of all installs/ }).waitFor();

      const quotas = rowsOf(page, /The tenant’s quotas/);
      await shown(() => quotas.count()).toBe(2);
      expect(await quotas.nth(0).textContent()).toContain('4 of 1,000 calls this month');
      expect(await quotas.nth(0).textContent()).toContain('Within');
      expect(await quotas.nth(1).textContent()).toMatch(/of 1 HTTP requests today \(reached\)/);
      expect(await quotas.nth(1).textContent()).toContain('Reached: calls are refused');
      expect(await axe(page)).toEqual([]);
      await screenshot(page, 'usage');

      // One install day by day, then another month: both kept in the URL.
      await page.getByRole('combobox', { name: /^Install/ }).selectOption('idv');
      await page.waitForURL((url) => url.searchParams.get('install') === 'idv');
      await rowsOf(page, /^Days of .* with use, install idv/)
        .first()
        .waitFor();
      await page.getByLabel('Month (UTC)').fill('2020-01');
      await page.waitForURL((url) => url.searchParams.get('month') === '2020-01');
      await page.getByText('No use by install idv in 2020-01.').waitFor();
      expect(refused).toEqual([]);
      await page.close();
    },
    SLOW,
  );

  it(
    'an analyst sees counts, never spend',
    async () => {
      const page = await stack.openPage('/usage', 'analyst');
      const table = page.getByRole('table', { name: /^Use per install in/ });
      await shown(() => table.locator('tbody tr').count()).toBe(1);
      expect(await table.locator('th').allTextContents()).toEqual([
        'Install',
        'Calls',
        'HTTP requests',
        'Vendor webhooks',
        'Hand-offs',
      ]);
      expect(await page.textContent('main')).not.toContain('Spend');
      await page.close();
    },
    SLOW,
  );
});
