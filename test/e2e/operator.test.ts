// An operator's work through the real `ops` command against a running platform (docs/operations.md "The
// ops command"): `npm start` as a newcomer runs it, the identity-verification app installed against its
// vendor double, then `npx ops apps block` on the running platform's embedded database. From the block's
// commit its test calls, its runs and its vendor webhooks answer app_blocked; the tenant reads
// app.module.blocked in its trail, gets the app_blocked notification and an outbound event. `npx ops apps
// unblock` frees the calls again, and `npx ops tenants usage --json` is GET /apps/metering for the month.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';
import { installIdv, VERIFY_STEP } from './idv-install.ts';
import { type Answer, answer, type ReadmeStack, startReadmeStack } from './readme-stack.ts';

const SLOW = 240_000;
const API_KEY = 'idv-ops-1234';
const WEBHOOK_SECRET = 'whsec-ops-5678';
const TENANT = 'ops-demo';
const OPERATOR = 'Olga Operator';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

const ok = (reply: Answer, status = 200) => expect(reply.status, reply.text).toBe(status);

/** `npx ops <args> --json`, which must exit 0: its JSON. */
async function opsJson(stack: ReadmeStack, args: string[]) {
  const result = await stack.ops([...args, '--json']);
  expect(result.code, `ops ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout);
}

/** `curl -X POST <double>/__double/sessions/<id>/decide`: the double signs and sends its webhook. */
async function decide(host: string, sessionId: string, verdict: Record<string, unknown>) {
  const response = await fetch(`http://${host}/__double/sessions/${sessionId}/decide`, {
    method: 'POST',
    body: JSON.stringify(verdict),
  });
  return { status: response.status, body: await response.json() };
}

async function startRun(stack: ReadmeStack, subjectId: string): Promise<string> {
  const started = await answer(
    stack.client.POST('/workflow-runs', {
      body: {
        workflow: 'kyc',
        subjectId,
        context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
      },
    }),
  );
  ok(started, 201);
  return started.body.id as string;
}

/** Polls a run until `done` holds for its status; that status. */
async function runStatus(stack: ReadmeStack, runId: string, done: (status: string) => boolean) {
  let status = 'running';
  await expect
    .poll(
      async () => {
        const polled = await answer(
          stack.client.GET('/workflow-runs/{id}', { params: { path: { id: runId } } }),
        );
        status = polled.body.status;
        return done(status);
      },
      { timeout: 60_000, interval: 50 },
    )
    .toBe(true);
  return status;
}

/** A run of kyc waiting on the vendor's session: its id and the session's. */
async function waitingRun(stack: ReadmeStack, subjectId: string) {
  const runId = await startRun(stack, subjectId);
  expect(await runStatus(stack, runId, (status) => status !== 'running')).toBe('waiting_callback');
  const run = await answer(stack.client.GET('/workflow-runs/{id}', { params: { path: { id: runId } } }));
  return { runId, sessionId: run.body.context.verificationExternalId as string };
}

const testCall = (stack: ReadmeStack) =>
  answer(
    stack.client.POST('/app-installs/{install}/test', {
      params: { path: { install: 'idv' } },
      body: { action: 'start_verification', input: { firstName: 'Ada', lastName: 'Lovelace' } },
    }),
  );

describe('the operator blocks and unblocks a module through `npx ops` on the running platform', () => {
  it(
    'test calls, runs and vendor webhooks answer app_blocked from the block on; the tenant reads it in its trail, notifications and events; unblock frees calls; usage is the metering report',
    async () => {
      const stack = await startReadmeStack(TENANT, 'apps-platform-e2e-ops-', {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // Deliveries made at the trail's next pass, without the ten-second hold (WEBHOOK_TRAIL_HOLD_MS).
        WEBHOOK_TRAIL_HOLD_MS: '0',
      });
      const { client } = stack;
      const { host } = await stack.startVendor([
        '--idv',
        '--webhook-secret',
        WEBHOOK_SECRET,
        '--api-key',
        API_KEY,
      ]);
      const install = (await installIdv(stack, host, { apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET }))
        .enabled.body as { id: string; version: { sha256: string } };
      ok(await testCall(stack));

      // The tenant receives app.module.blocked events (an endpoint nobody listens on: the delivery row is
      // what shows the event was raised).
      const endpoint = await answer(
        client.POST('/webhook-endpoints', {
          body: { url: `http://127.0.0.1:${await freePort()}/hooks`, events: ['app.module.blocked'] },
        }),
      );
      ok(endpoint, 201);
      // A workflow calling the install, published before the block.
      ok(
        await answer(
          client.POST('/workflow-definitions', {
            body: {
              key: 'kyc',
              body: { steps: [VERIFY_STEP] },
            },
          }),
        ),
        201,
      );
      ok(
        await answer(
          client.POST('/workflow-definitions/{key}/publish', { params: { path: { key: 'kyc' } } }),
        ),
      );

      // A run waiting on the vendor's session, opened before the block.
      const waiting = await waitingRun(stack, 'applicant-7');

      // The operator blocks every version of the platform's identity-verification.
      const reason = 'vendor SDK leaks applicant data';
      const blocked = await opsJson(stack, [
        'apps',
        'block',
        '--app',
        'identity-verification',
        '--platform',
        '--reason',
        reason,
        '--by',
        OPERATOR,
      ]);
      const blockId = blocked.block.id as string;
      expect(blocked.block).toMatchObject({ scope: 'app', reason, createdBy: OPERATOR });

      // At once, no restart: the test call, a run and the vendor's webhook are refused.
      const refused = await testCall(stack);
      ok(refused, 409);
      expect(refused.body.error).toMatchObject({
        code: 'app_blocked',
        details: { sha256: install.version.sha256, reason },
      });
      const refusedRun = await startRun(stack, 'applicant-9');
      expect(await runStatus(stack, refusedRun, (status) => status !== 'running')).toBe('failed');
      const failed = await answer(
        client.GET('/workflow-runs/{id}', { params: { path: { id: refusedRun } } }),
      );
      expect(failed.body.error).toMatchObject({ code: 'app_blocked' });
      // The vendor's signed webhook for the session opened before the block: refused, without details.
      const refusedHook = await decide(host, waiting.sessionId, { decision: 'approved' });
      expect(refusedHook.body.platform).toEqual({
        status: 409,
        body: { error: { code: 'app_blocked', message: expect.any(String), requestId: expect.any(String) } },
      });

      // The tenant's trail, its notification, and the outbound event.
      const trail = await answer(
        client.GET('/audit-events', { params: { query: { action: 'app.module.' } } }),
      );
      ok(trail);
      expect(trail.body.items).toEqual([
        expect.objectContaining({
          action: 'app.module.blocked',
          actor: { type: 'operator', id: OPERATOR, name: OPERATOR },
          resource: { type: 'app_install', id: install.id },
          data: expect.objectContaining({
            name: 'idv',
            appName: 'identity-verification',
            sha256: install.version.sha256,
            scope: 'app',
            reason,
          }),
        }),
      ]);
      const notifications = await answer(client.GET('/notifications', { params: { query: {} } }));
      ok(notifications);
      expect(notifications.body.items.map((n: { kind: string }) => n.kind)).toContain('app_blocked');
      await expect
        .poll(
          async () => {
            const listed = await answer(
              client.GET('/webhook-deliveries', { params: { query: { event: 'app.module.blocked' } } }),
            );
            return listed.body.items.length;
          },
          { timeout: 60_000, interval: 200 },
        )
        .toBe(1);

      // The operator lifts the block: calls work again; the lift is in the instance trail.
      const lifted = await opsJson(stack, ['apps', 'unblock', blockId, '--by', OPERATOR]);
      expect(lifted.block).toMatchObject({ id: blockId, liftedBy: OPERATOR });
      ok(await testCall(stack));
      const freedHook = await decide(host, waiting.sessionId, { decision: 'approved' });
      expect(freedHook.body.platform).toMatchObject({ status: 202, body: { status: 'completed' } });
      // Settled, the run passes through running (its continuation) before it ends: wait for the end.
      const ended = (status: string) => status !== 'waiting_callback' && status !== 'running';
      expect(await runStatus(stack, waiting.runId, ended)).toBe('completed');
      const audit = await opsJson(stack, ['audit', '--action', 'app.module.', '--tenant', TENANT]);
      expect(audit.items.map((e: { action: string }) => e.action)).toEqual([
        'app.module.unblocked',
        'app.module.blocked',
      ]);

      // The billing export is the tenant's own month report.
      const usage = await opsJson(stack, ['tenants', 'usage', TENANT]);
      const metering = await answer(client.GET('/apps/metering', { params: { query: {} } }));
      ok(metering);
      expect(usage).toEqual(metering.body);

      const { platform } = await stack.stop();
      expect(platform.code).toBe(0);
    },
    SLOW,
  );
});
