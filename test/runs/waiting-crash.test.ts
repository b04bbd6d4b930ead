// Kill -9 the platform while 50 runs wait on vendor sessions and their webhooks arrive (docs/runs.md
// "Waiting on a vendor session", docs/callbacks.md "First completion wins"). The runner and an api for the
// test's own calls run in this process; the worker is a real `platform start --role worker` child with a
// stable executor id, and the vendor's webhooks go to a real `platform start --role api` child. Each run
// calls the release http-connector's request_async (its session opens, the run waits), then, once its
// webhook settled the session, a follow-up request the vendor holds, then a decide step. The vendor
// delivers signed completions for every session — some twice, a few with a rival event id — while the
// worker is SIGKILLed with continuations inside their follow-up call, and the webhook api is SIGKILLed
// with deliveries in flight (they fail as connection errors, and the test delivers them again, as a
// vendor retries). After the restarts every session settled once, every run ended once with its
// session's output, and no continuation did its work twice.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { signedWebhook, startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { auditEvents } from '../../src/audit/tables.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { appCallbacks, appWebhookEvents } from '../../src/vendor-sessions/tables.ts';
import { ENGINE_SCHEMA } from '../../src/worker/engine.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { freePort } from '../support/free-port.ts';
import { cleanUpProcesses, removeTempDirs, tempDir } from '../support/processes.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { publishDefinitionRows } from './definitions.ts';
import { CONNECTOR } from './stack.ts';
import { startApiProcess, startWorkerProcess, until } from './worker-process.ts';

const SLOW = 180_000;
const RUNS = 50;
const WEBHOOK_SECRET = 'whsec-waiting-crash-7c1';
/** The worker dies once this many deliveries settled a session (and continuations sit in their follow-up). */
const WORKER_KILL_AFTER_WINS = 15;
/** The webhook api dies once this many deliveries were answered (others are in flight). */
const API_KILL_AFTER_ANSWERS = 35;
/** Deliveries in flight at once (the webhook api gives a tenant 4 runner places; the rest wait there). */
const DELIVERY_CONCURRENCY = 6;

let platform: CataloguePlatform;
let vendor: VendorDouble;
let connectorVersionId: string;
/** Follow-up requests the vendor holds until the worker is killed (the continuations are inside them). */
let followupsHeld = 0;
let releaseFollowups = () => {};
const followupsReleased = new Promise<void>((resolve) => {
  releaseFollowups = resolve;
});

beforeAll(async () => {
  platform = await startCataloguePlatform(
    {
      SECRET_STORE_KEY: SECRET_KEY_HEX,
      APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
      API_RATE_LIMIT_PER_MINUTE: '0',
    },
    // The worker's 4 held follow-ups and the webhook api's 4 deliveries of the one tenant at once.
    { runnerEnv: { APP_RUNNER_CONCURRENCY: '12', APP_RUNNER_TENANT_CONCURRENCY: '12' } },
  );
  vendor = await startVendorDouble([
    {
      method: 'POST',
      path: '/jobs',
      // The job's id is the one the run's input names: an attempt sent again starts the same job.
      respond: (request) => ({ json: { id: (JSON.parse(request.body) as { id: string }).id } }),
    },
    {
      method: 'GET',
      path: '/followups/:job',
      respond: async (request) => {
        followupsHeld++;
        await followupsReleased;
        return { json: { job: request.params.job, checked: true } };
      },
    },
  ]);
  const admin = await platform.token();
  connectorVersionId = (await published(platform, admin, fs.readFile(CONNECTOR))).id;
}, 120_000);
afterEach(cleanUpProcesses);
afterAll(async () => {
  releaseFollowups();
  await vendor?.close();
  await platform?.close();
  await removeTempDirs();
});

/** Settings every child shares: the test's database and runner, the secret store's key. */
const sharedEnv = () => ({
  DATABASE_URL: platform.config.databaseUrl as string,
  APP_RUNNER_URL: platform.runnerUrl,
  APP_RUNNER_TOKEN: RUNNER_TOKEN,
  APP_CALL_TOKEN_SECRET: 'call-token-secret-for-the-waiting-crash-test',
  SECRET_STORE_KEY: SECRET_KEY_HEX,
  APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
});

const startWorker = () => startWorkerProcess({ ...sharedEnv(), WORKER_EXECUTOR_ID: 'waiting-crash-worker' });

/**
 * `platform start --role api` on `port` (production settings: no token is ever checked here, the vendor's
 * webhook route is public); resolves once /health answers 200.
 */
const startApi = (port: number, dataDir: string) =>
  startApiProcess(
    {
      ...sharedEnv(),
      DATA_DIR: dataDir,
      RELEASE_INDEX: path.join(dataDir, 'release.json'),
      AUTH_JWKS_URL: 'http://127.0.0.1:9/jwks.json',
      AUTH_ISSUER: 'waiting-crash-test',
      AUTH_AUDIENCE: 'apps-platform',
    },
    port,
  );

async function kill(child: ChildProcess): Promise<void> {
  const closed = new Promise((resolve) => child.once('close', resolve));
  process.kill(-(child.pid as number), 'SIGKILL');
  await closed;
}

interface Delivery {
  /** The run's (and its session's) number. */
  n: number;
  eventId: string;
}

/** Every session's completion; a repeat of every fourth; a rival event (another id, another output) of a few. */
function deliveries(): Delivery[] {
  const list: Delivery[] = [];
  for (let n = 0; n < RUNS; n++) {
    list.push({ n, eventId: `evt-${n}` });
    if (n % 4 === 0) list.push({ n, eventId: `evt-${n}` });
    if (n % 10 === 3) list.push({ n, eventId: `evt-${n}-rival` });
  }
  // A fixed shuffle (a small LCG): repeats and rivals land apart and together, the same way every time.
  let seed = 7;
  for (let i = list.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const j = seed % (i + 1);
    [list[i], list[j]] = [list[j] as Delivery, list[i] as Delivery];
  }
  return list;
}

/** The vendor's signed webhook for a delivery: the job's id, the event's id, and the result it carries. */
const webhookOf = (d: Delivery) =>
  signedWebhook({
    secret: WEBHOOK_SECRET,
    body: JSON.stringify({
      job: { id: `job-${d.n}` },
      eventId: d.eventId,
      status: 'completed',
      result: { decision: 'approved', job: `job-${d.n}`, via: d.eventId },
    }),
  });

it(
  'after kill -9 of the worker and of the webhook api, every session settles once and every run ends once',
  async () => {
    const startedAt = Date.now();
    const admin = await platform.token();
    const tenantId = await platform.tenantId();
    const db = platform.database.db;
    const call = (p: string, method = 'GET', json?: unknown) =>
      platform.fetch(p, { method, token: admin, json });

    // The http-connector, its signed webhooks (hmac over the body; job id, event id and result in it).
    const config = {
      baseUrl: vendor.url,
      webhook: {
        scheme: 'hmac',
        externalIdFrom: { json: '/job/id' },
        eventIdFrom: { json: '/eventId' },
        outputFrom: { json: '/result' },
      },
    };
    const install = await ok<{ id: string }>(
      await call('/app-installs', 'POST', {
        name: 'jobs',
        versionId: connectorVersionId,
        enabled: false,
        config,
        approveHosts: [vendor.host],
      }),
      201,
    );
    await ok(await call('/app-installs/jobs/secrets/WEBHOOK_SECRET', 'POST', { value: WEBHOOK_SECRET }));
    await ok(
      await call('/app-installs/jobs', 'PUT', { versionId: connectorVersionId, enabled: true, config }),
    );
    await publishDefinitionRows(platform.database, tenantId, 'workflow', 'verify', {
      steps: [
        {
          id: 'start',
          type: 'call_app',
          install: 'jobs',
          action: 'request_async',
          input: { method: 'POST', path: '/jobs', body: {} },
          inputMapping: { 'body.id': 'jobId' },
          outputKey: 'verification',
        },
        {
          id: 'followup',
          type: 'call_app',
          install: 'jobs',
          action: 'request',
          input: { method: 'GET' },
          inputMapping: { path: 'followupPath' },
          outputKey: 'followup',
        },
        {
          id: 'verdict',
          type: 'decide',
          branches: [{ when: { path: 'verification.decision', equals: 'approved' }, outcome: 'approve' }],
          otherwise: 'review',
        },
      ],
    });

    // 50 runs, each waiting on its own session (their own workflows ended at the wait). The webhook api
    // starts meanwhile. Runs start once the worker is up: its engine's launch creates the engine's tables,
    // which the api's start of a run writes into.
    const apiPort = await freePort();
    const apiDataDir = await tempDir('waiting-crash-api-');
    const firstApi = startApi(apiPort, apiDataDir);
    let worker = await startWorker();
    const startRun = async (n: number) =>
      (
        await ok<{ id: string }>(
          await call('/workflow-runs', 'POST', {
            workflow: 'verify',
            subjectId: `subject-${n}`,
            context: { jobId: `job-${n}`, followupPath: `/followups/job-${n}` },
          }),
          201,
        )
      ).id;
    const runIds: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 5 }, async () => {
        for (let n = next++; n < RUNS; n = next++) runIds[n] = await startRun(n);
      }),
    );
    const engine = sql.identifier(ENGINE_SCHEMA);
    await until(
      'every run waiting, its own workflow ended',
      async () => {
        const [waiting] = (
          await db.execute<{ runs: number; workflows: number }>(sql`
          select
            (select count(*)::int from ${workflowRuns} where status = 'waiting_callback') as runs,
            (select count(*)::int from ${engine}.workflow_status
              where name = 'runs.workflow' and status = 'SUCCESS') as workflows`)
        ).rows;
        return waiting?.runs === RUNS && waiting.workflows === RUNS ? true : null;
      },
      90_000,
    );
    const sessions = await db.select().from(appCallbacks).where(inArray(appCallbacks.workflowRunId, runIds));
    expect(sessions).toHaveLength(RUNS);
    expect(sessions.every((s) => s.status === 'pending')).toBe(true);
    const sessionOf = new Map(sessions.map((s) => [s.externalId, s]));
    const waitingAt = Date.now();

    // The vendor delivers; the worker and then the webhook api die on the way.
    const answers: { d: Delivery; status: number; body: Record<string, unknown>; cut: boolean }[] = [];
    const inFlight = new Set<Delivery>();
    let wins = 0;
    let connectionErrors = 0;
    // The kills under way: the continuations the worker died inside, the events whose wake the api's cut.
    const kills: { worker: Promise<number> | null; api: Promise<string[]> | null } = {
      worker: null,
      api: null,
    };
    let apiUp: Promise<ChildProcess> = firstApi;
    const killWorker = async () => {
      await until('a continuation inside its follow-up call', async () => (followupsHeld > 0 ? true : null));
      const held = followupsHeld;
      await kill(worker);
      releaseFollowups();
      worker = await startWorker();
      return held;
    };
    // The api dies after a delivery committed its event and before it woke the run: the engine's
    // workflow table is locked (no workflow can be started) until a delivery in flight has settled its
    // session with no continuation written; the api is killed, then the lock let go. Only the worker's
    // resumer can move that run on. Answers the event ids whose wake the kill cut off.
    const killApiAfterCommit = async (current: ChildProcess): Promise<string[]> => {
      const lock = await platform.database.pool.connect();
      try {
        await lock.query('begin');
        await lock.query(`lock table ${ENGINE_SCHEMA}.workflow_status in share mode`);
        const held = await until('a delivery settled its session, its wake held', async () => {
          const { rows } = await lock.query<{ event_id: string }>(
            `select e.event_id from app_webhook_events e join app_callbacks c on c.id = e.callback_id
             where e.install_id = $1 and e.outcome = 'completed' and e.event_id = any($2)
               and not exists (select 1 from ${ENGINE_SCHEMA}.workflow_status w
                               where w.workflow_uuid = c.workflow_run_id::text || ':' || c.id::text)`,
            [install.id, [...inFlight].map((d) => d.eventId)],
          );
          return rows.length > 0 ? rows.map((r) => r.event_id) : null;
        });
        const killed = kill(current);
        // From now on deliveries wait for the new api, then go again.
        apiUp = killed.then(() => startApi(apiPort, apiDataDir));
        await killed;
        return held;
      } finally {
        await lock.query('rollback');
        lock.release();
      }
    };
    const deliverOnce = async (d: Delivery) => {
      const webhook = webhookOf(d);
      let cut = false;
      for (let attempt = 1; ; attempt++) {
        const current = await apiUp;
        inFlight.add(d);
        const answer = await fetch(`http://127.0.0.1:${apiPort}/webhooks/app-installs/${install.id}`, {
          method: 'POST',
          headers: webhook.headers,
          body: webhook.body as string,
        })
          .then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
          .catch(() => null);
        inFlight.delete(d);
        if (answer && answer.status < 500) {
          answers.push({ d, ...answer, cut });
          if (answer.body.received === true) wins++;
          if (wins >= WORKER_KILL_AFTER_WINS) kills.worker ??= killWorker();
          if (answers.length >= API_KILL_AFTER_ANSWERS) kills.api ??= killApiAfterCommit(current);
          return;
        }
        if (!answer) {
          cut = true;
          connectionErrors++;
        }
        // A 5xx (the runner busy) or a connection cut by the kill: the vendor delivers again.
        expect(attempt, `delivery ${d.eventId}: ${answer?.status ?? 'no connection'}`).toBeLessThan(5);
      }
    };
    const queue = deliveries();
    await Promise.all(
      Array.from({ length: DELIVERY_CONCURRENCY }, async () => {
        for (let d = queue.shift(); d; d = queue.shift()) await deliverOnce(d);
      }),
    );
    const heldAtKill = await (kills.worker ?? Promise.reject(new Error('the worker was never killed')));
    const wakesCut = await (kills.api ?? Promise.reject(new Error('the api was never killed')));
    await apiUp;
    const deliveredAt = Date.now();

    await until(
      'every run’s end',
      async () => {
        const open = await db
          .select({ id: workflowRuns.id })
          .from(workflowRuns)
          .where(
            and(
              inArray(workflowRuns.id, runIds),
              inArray(workflowRuns.status, ['running', 'waiting_callback']),
            ),
          );
        return open.length === 0 ? true : null;
      },
      90_000,
    );
    const endedAt = Date.now();

    // The kills landed where they were meant to: continuations inside a call; deliveries in flight, one
    // of them (at least) after its commit and before its wake. That event was never answered 202: its
    // redelivery is a duplicate, and its run moved on through the resumer alone.
    expect(heldAtKill).toBeGreaterThan(0);
    expect(wakesCut.length).toBeGreaterThan(0);
    for (const eventId of wakesCut) {
      const its = answers.filter((a) => a.d.eventId === eventId);
      expect(its.some((a) => a.cut && a.body.duplicate === true)).toBe(true);
      expect(its.filter((a) => a.body.received === true)).toEqual([]);
    }

    // Every delivery was answered: one win per session at most, the rest duplicate or stale.
    expect(answers).toHaveLength(deliveries().length);
    for (const { d, status, body } of answers) {
      const session = sessionOf.get(`job-${d.n}`);
      if (body.received === true)
        expect([status, body]).toEqual([
          202,
          { received: true, callbackId: session?.id, status: 'completed' },
        ]);
      else if (body.duplicate === true)
        expect([status, body]).toEqual([200, { received: false, duplicate: true }]);
      else
        expect([status, body]).toEqual([
          200,
          { received: false, stale: true, callbackId: session?.id, status: 'completed' },
        ]);
    }
    for (let n = 0; n < RUNS; n++) {
      expect(answers.filter((a) => a.d.n === n && a.body.received === true).length).toBeLessThanOrEqual(1);
    }

    // Every session completed once: one completing event, one audit, its run moved on.
    const settled = await db.select().from(appCallbacks).where(inArray(appCallbacks.workflowRunId, runIds));
    const events = await db.select().from(appWebhookEvents).where(eq(appWebhookEvents.installId, install.id));
    const received = await db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.action, 'app.callback.received')));
    for (const session of settled) {
      const n = Number(session.externalId.replace('job-', ''));
      expect(session.status).toBe('completed');
      expect(session.resumedAt).not.toBeNull();
      const its = events.filter((e) => e.callbackId === session.id);
      const completing = its.filter((e) => e.outcome === 'completed');
      expect(completing).toHaveLength(1);
      // Each event id recorded once: the repeat never; a rival stale.
      const ids = n % 10 === 3 ? [`evt-${n}`, `evt-${n}-rival`] : [`evt-${n}`];
      expect(its.map((e) => e.eventId).sort()).toEqual(ids);
      expect(its.filter((e) => e.outcome !== 'completed').every((e) => e.outcome === 'stale')).toBe(true);
      expect(session.output).toEqual({
        decision: 'approved',
        job: session.externalId,
        via: completing[0]?.eventId,
      });
      const audits = received.filter((a) => a.data.callbackId === session.id);
      expect(audits.map((a) => a.data.eventId)).toEqual([completing[0]?.eventId]);
    }

    // Every run completed once with its session's output; each step's work done once.
    const runs = await db.select().from(workflowRuns).where(inArray(workflowRuns.id, runIds));
    const ends = await db
      .select()
      .from(auditEvents)
      .where(
        and(
          eq(auditEvents.tenantId, tenantId),
          inArray(auditEvents.action, ['workflow.run.completed', 'workflow.run.failed', 'decision.emitted']),
        ),
      );
    const records = await db
      .select()
      .from(appInvocations)
      .where(inArray(appInvocations.workflowRunId, runIds));
    for (const run of runs) {
      const session = settled.find((s) => s.workflowRunId === run.id);
      expect(run.status, JSON.stringify(run.error)).toBe('completed');
      expect(run.workflowId).toBe(`${run.id}:${session?.id}`);
      expect(run.context).toEqual({
        jobId: session?.externalId,
        followupPath: `/followups/${session?.externalId}`,
        verification: session?.output,
        verificationExternalId: session?.externalId,
        followup: expect.objectContaining({ status: 200, body: { job: session?.externalId, checked: true } }),
        verdict: { outcome: 'approve', riskScore: null },
      });
      const its = ends.filter((a) => a.data.workflowRunId === run.id);
      expect(its.map((a) => a.action).sort()).toEqual(['decision.emitted', 'workflow.run.completed']);
      const calls = records.filter((r) => r.workflowRunId === run.id);
      expect(calls.map((r) => `${r.stepId}:${r.status}`).sort()).toEqual([
        'followup:success',
        'start:pending',
      ]);
    }
    // One continuation per run, and it succeeded; the vendor started each job once.
    const [continuations] = (
      await db.execute<{ total: number; succeeded: number; recovered: number }>(sql`
        select count(*)::int as total,
               (count(*) filter (where status = 'SUCCESS'))::int as succeeded,
               (count(*) filter (where recovery_attempts > 1))::int as recovered
        from ${engine}.workflow_status where name = 'runs.resume'`)
    ).rows;
    expect(continuations).toMatchObject({ total: RUNS, succeeded: RUNS });
    expect(vendor.requests.filter((r) => r.path === '/jobs')).toHaveLength(RUNS);
    // The follow-ups the killed worker was inside were sent again by the recovered continuations.
    expect(vendor.requests.filter((r) => r.path.startsWith('/followups/')).length).toBeGreaterThanOrEqual(
      RUNS + heldAtKill,
    );

    console.info(
      `waiting-crash: ${RUNS} runs waiting in ${waitingAt - startedAt} ms; ${answers.length} deliveries ` +
        `(${connectionErrors} cut by the api's kill and delivered again, ${wakesCut.length} of them after ` +
        `their commit) in ${deliveredAt - waitingAt} ms; ` +
        `worker killed with ${heldAtKill} continuations in their follow-up, ${continuations?.recovered} ` +
        `continuations recovered; every run ended ${endedAt - deliveredAt} ms after the last delivery`,
    );
  },
  SLOW,
);
