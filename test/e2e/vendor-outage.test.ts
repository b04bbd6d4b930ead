// The README's "A vendor outage: the circuit opens, a fallback takes over", followed through the real
// processes (readme-stack.ts): `npm start`, two `npx app vendor-double` (the vendor and the backup), the
// vendor installed as in steps 1–3, then steps 11–17 in order — the double switched down over its
// control route, a run whose five outages open the circuit and whose fallback completes the step, the
// install's circuit, the health report and the notification, a run refused at once, the vendor's
// recovery and the half-open trial that closes the circuit, and the audit trail. Where the README waits
// `sleep 5`, the test polls the circuit until it is half-open.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';
import { type Answer, answer, type ReadmeStack, settledRun, startReadmeStack } from './readme-stack.ts';

const SLOW = 180_000;
const SECRET = 'sk-demo-1234567890';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

/** The lines a vendor double printed for requests (not for switches), without their time. */
const requestLines = (stderr: string) =>
  stderr
    .split('\n')
    .map((line) => line.replace(/^\S+ /, ''))
    .filter((line) => /^[A-Z]+ \//.test(line));

/** curl -s <vendor>/__double/outage -X <method> [-d <body>] */
async function switchOutage(host: string, method: 'POST' | 'DELETE', body?: string) {
  const switched = await fetch(`http://${host}/__double/outage`, { method, body });
  return { status: switched.status, body: await switched.json() };
}

describe('README: a vendor outage opens the circuit and a fallback takes over', () => {
  it(
    'five outages open vendor’s circuit and backup completes the step; the next run is refused at once; recovery closes the circuit through the half-open trial',
    async () => {
      const stack = await startReadmeStack('demo', 'apps-platform-e2e-outage-');
      const { client } = stack;
      const { vendor, host: vendorHost } = await stack.startVendor(); // terminal 2
      const { vendor: backupVendor, host: backupHost } = await stack.startVendor(); // terminal 4
      const ok = (reply: Answer, status = 200) => expect(reply.status, reply.text).toBe(status);

      // 1–3: the release version of http-connector, installed as `vendor` with its key, enabled.
      const versions = await answer(
        client.GET('/apps/{name}/versions', { params: { path: { name: 'http-connector' } } }),
      );
      const versionId = versions.body.items[0].id as string;
      const config = { baseUrl: `http://${vendorHost}`, auth: { type: 'apiKey', header: 'X-Api-Key' } };
      ok(
        await answer(
          client.POST('/app-installs', {
            body: { name: 'vendor', versionId, enabled: false, config, approveHosts: [vendorHost] },
          }),
        ),
        201,
      );
      ok(
        await answer(
          client.POST('/app-installs/{install}/secrets/{secret}', {
            params: { path: { install: 'vendor', secret: 'API_KEY' } },
            body: { value: SECRET },
          }),
        ),
      );
      ok(
        await answer(
          client.PUT('/app-installs/{install}', {
            params: { path: { install: 'vendor' } },
            body: { versionId, enabled: true, config },
          }),
        ),
      );

      // 11. a second install of http-connector, against the backup vendor
      const backup = await answer(
        client.POST('/app-installs', {
          body: {
            name: 'backup',
            versionId,
            enabled: true,
            config: { baseUrl: `http://${backupHost}` },
            approveHosts: [backupHost],
          },
        }),
      );
      ok(backup, 201);
      expect(backup.body).toMatchObject({ name: 'backup', enabled: true, missingSecrets: [] });

      // 12. a workflow whose step falls back to it
      const screen = { method: 'GET', path: '/screen' };
      ok(
        await answer(
          client.POST('/workflow-definitions', {
            body: {
              key: 'resilient',
              body: {
                steps: [
                  {
                    id: 'screen',
                    type: 'call_app',
                    install: 'vendor',
                    action: 'request',
                    input: screen,
                    outputKey: 'screening',
                    retry: { maxAttempts: 5, backoffMs: 0 },
                    fallback: { install: 'backup', action: 'request', input: screen },
                  },
                ],
              },
            },
          }),
        ),
        201,
      );
      ok(
        await answer(
          client.POST('/workflow-definitions/{key}/publish', { params: { path: { key: 'resilient' } } }),
        ),
      );

      // 13. vendor's open time is 5 s
      const configured = await answer(
        client.PUT('/app-installs/{install}/circuit', {
          params: { path: { install: 'vendor' } },
          body: { failureThreshold: null, openSeconds: 5 },
        }),
      );
      ok(configured);

      // 14. the vendor goes down
      expect(await switchOutage(vendorHost, 'POST', '{"mode":"unavailable"}')).toEqual({
        status: 200,
        body: { outage: { mode: 'unavailable', status: 503 }, held: 0 },
      });

      // 15. a run: five outages open the circuit, then backup takes the call
      const first = await runWorkflow(stack);
      expect(first.body, first.text).toMatchObject({
        workflow: 'resilient',
        status: 'completed',
        error: null,
      });
      expect(first.body.context.screening).toMatchObject({
        status: 200,
        body: { received: { method: 'GET', path: '/screen' } },
      });
      expect(first.body.steps).toEqual([
        expect.objectContaining({
          id: 'screen',
          type: 'call_app',
          status: 'completed',
          attempts: 6,
          error: null,
        }),
      ]);
      // Terminal 2: five lines ending in (outage unavailable); terminal 4: GET /screen.
      await expect.poll(() => requestLines(vendor.stderr())).toHaveLength(5);
      for (const line of requestLines(vendor.stderr()))
        expect(line).toMatch(/^GET \/screen \{.*\} \(outage unavailable\)$/);
      await expect
        .poll(() => requestLines(backupVendor.stderr()))
        .toEqual([expect.stringMatching(/^GET \/screen \{/)]);

      const install = await answer(
        client.GET('/app-installs/{install}', { params: { path: { install: 'vendor' } } }),
      );
      ok(install);
      const vendorId = install.body.id as string;
      expect(install.body.circuit).toEqual({
        state: 'open',
        failures: 5,
        since: expect.any(String),
        settings: { failureThreshold: null, openSeconds: 5 },
        defaults: { failureThreshold: 5, openSeconds: 30 },
      });

      const health = await answer(client.GET('/apps/health'));
      ok(health);
      expect(health.body.installs).toContainEqual(
        expect.objectContaining({
          installId: vendorId,
          name: 'vendor',
          appName: 'http-connector',
          failures: 5,
        }),
      );
      expect(health.body.circuits).toEqual([
        expect.objectContaining({ installId: vendorId, name: 'vendor', state: 'open', failures: 5 }),
      ]);

      const notifications = await answer(client.GET('/notifications'));
      ok(notifications);
      const degraded = (notifications.body.items as { kind: string; data: Record<string, unknown> }[]).filter(
        (notification) => notification.kind === 'app_degraded',
      );
      expect(degraded).toEqual([
        expect.objectContaining({
          resource: { type: 'app_install', id: vendorId },
          data: expect.objectContaining({ install: 'vendor', app: 'http-connector', failures: 5 }),
        }),
      ]);

      // The run's records: five vendor errors, then backup's success standing in for vendor.
      const firstRecords = await records(stack, first.body.id);
      expect(firstRecords.map((r) => [r.installName, r.status, r.fallbackOf])).toEqual([
        ...Array.from({ length: 5 }, () => ['vendor', 'error', null]),
        ['backup', 'success', { installId: vendorId, name: 'vendor' }],
      ]);

      // 16. another run: refused at once, nothing sent to the vendor, backup again
      const second = await runWorkflow(stack);
      expect(second.body, second.text).toMatchObject({ status: 'completed', error: null });
      expect((await records(stack, second.body.id)).map((r) => [r.installName, r.status])).toEqual([
        ['backup', 'success'],
      ]);
      await expect.poll(() => requestLines(backupVendor.stderr())).toHaveLength(2);
      expect(requestLines(vendor.stderr())).toHaveLength(5);

      // 17. the vendor recovers; once the circuit is half-open, the next run's trial closes it
      expect(await switchOutage(vendorHost, 'DELETE')).toEqual({
        status: 200,
        body: { outage: null, held: 0 },
      });
      await expect
        .poll(
          async () =>
            (await answer(client.GET('/app-installs/{install}', { params: { path: { install: 'vendor' } } })))
              .body.circuit.state,
          { timeout: 15_000, interval: 200 },
        )
        .toBe('half_open');
      const third = await runWorkflow(stack);
      expect(third.body, third.text).toMatchObject({ status: 'completed', error: null });
      expect((await records(stack, third.body.id)).map((r) => [r.installName, r.status])).toEqual([
        ['vendor', 'success'],
      ]);
      await expect.poll(() => requestLines(vendor.stderr())).toHaveLength(6);
      expect(requestLines(vendor.stderr())[5]).toMatch(/^GET \/screen \{.*"x-api-key":"sk-demo-1234567890"/);
      const closed = await answer(
        client.GET('/app-installs/{install}', { params: { path: { install: 'vendor' } } }),
      );
      expect(closed.body.circuit).toMatchObject({ state: 'closed', failures: 0 });

      const audit = await answer(
        client.GET('/audit-events', { params: { query: { action: 'app.circuit.' } } }),
      );
      ok(audit);
      const events = (audit.body.items as { action: string; data: Record<string, unknown> }[]).toReversed();
      expect(events.map((event) => event.action)).toEqual([
        'app.circuit.configured',
        'app.circuit.opened',
        'app.circuit.closed',
      ]);
      expect(events[1]?.data).toMatchObject({ install: 'vendor', app: 'http-connector', failures: 5 });

      const { platform, vendors } = await stack.stop();
      expect(platform.code, platform.stderr).toBe(0);
      expect(vendors.map((exit) => exit.code)).toEqual([0, 0]);
      for (const text of stack.answers) expect(text).not.toContain(SECRET);
      expect(platform.stdout + platform.stderr).not.toContain(SECRET);
      expect(platform.stderr).not.toMatch(/"level":"(error|fatal)"/);
    },
    SLOW,
  );
});

/** The README's run_wf: start a run of `resilient` and poll it until it is no longer running. */
async function runWorkflow(stack: ReadmeStack): Promise<Answer> {
  const started = await answer(
    stack.client.POST('/workflow-runs', { body: { workflow: 'resilient', subjectId: 'applicant-42' } }),
  );
  expect(started.status, started.text).toBe(201);
  const settled = await settledRun(stack.client, started.body.id);
  expect(settled.status, settled.text).toBe(200);
  return settled;
}

/** A run's invocation records, oldest first. */
async function records(stack: ReadmeStack, runId: string) {
  const listed = await answer(
    stack.client.GET('/app-invocations', { params: { query: { workflowRunId: runId } } }),
  );
  expect(listed.status, listed.text).toBe(200);
  return (
    listed.body.items as { installName: string; status: string; fallbackOf: unknown; attempt: number }[]
  ).toReversed();
}
