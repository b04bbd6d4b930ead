// The real api and runner (startCataloguePlatform) with a worker (DBOS) in this process — vitest gives
// each file its own process, and DBOS is one per process — plus the release http-connector installed
// against a vendor double, and definitions written straight into the tables.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { asc, eq } from 'drizzle-orm';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import {
  startVendorDouble,
  type VendorDouble,
  type VendorRoute,
} from '../../packages/app-testing/src/index.ts';
import { appInvocations } from '../../src/calls/tables.ts';
import { openDatabase } from '../../src/db/pool.ts';
import { createRunnerClient } from '../../src/runner/client.ts';
import { runsBackground } from '../../src/runs/background.ts';
import type { DefinitionBody, DefinitionKind } from '../../src/runs/model.ts';
import { RESULT_POLLING_MS, type RunsRuntime, registerRunWorkflows } from '../../src/runs/workflows.ts';
import { type RunningWorker, startWorker } from '../../src/worker/index.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok, published, SECRET_KEY_HEX } from '../installs/support.ts';
import { timed } from '../support/profile.ts';
import { RUNNER_TOKEN } from '../support/runner.ts';
import { publishDefinitionRows } from './definitions.ts';

export const CONNECTOR = path.resolve(import.meta.dirname, '../../apps/build/http-connector-1.0.0.wasm');

export interface RunsStack {
  platform: CataloguePlatform;
  /** What the worker's run workflows call (re-register it with another callMode to switch). */
  runtime: RunsRuntime;
  worker: RunningWorker;
  vendor: VendorDouble;
  connectorVersionId: string;
  close(): Promise<void>;
}

/** logger: the worker's and its run workflows' (DBOS logs through it); absent, silent. */
export async function startRunsStack(
  routes: VendorRoute[],
  options: { logger?: Logger; resumeIntervalMs?: number } = {},
): Promise<RunsStack> {
  const platform = await startCataloguePlatform({
    SECRET_STORE_KEY: SECRET_KEY_HEX,
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    // Tests wait on runs by polling them: no caller's limit may answer a wait with 429.
    API_RATE_LIMIT_PER_MINUTE: '0',
  });
  const databaseUrl = platform.config.databaseUrl as string;
  const database = openDatabase(databaseUrl, { applicationName: 'test-worker' });
  const runner = createRunnerClient({ baseUrl: platform.runnerUrl, token: RUNNER_TOKEN });
  const logger = options.logger ?? pino({ level: 'silent' });
  const runtime: RunsRuntime = {
    database,
    logger,
    attempt: {
      database,
      runner,
      secretStoreKey: platform.config.secretStoreKey,
      cacheBudget: platform.config.cacheBudget,
      callTokenSecret: null,
      circuitDefaults: platform.config.circuit,
    },
  };
  const worker = await timed('starting', () =>
    startWorker({
      databaseUrl,
      logger,
      healthPort: null,
      executorId: `test-${process.pid}`,
      registerWorkflows: () => registerRunWorkflows(runtime),
      // The resumer moves runs waiting on vendor sessions on (a short interval: tests wait on it).
      ...(options.resumeIntervalMs
        ? {
            startBackground: () =>
              runsBackground(database, logger, { resumeIntervalMs: options.resumeIntervalMs }),
          }
        : {}),
    }),
  );
  const vendor = await startVendorDouble(routes);
  const admin = await platform.token();
  const version = await published(platform, admin, fs.readFile(CONNECTOR));
  return {
    platform,
    runtime,
    worker,
    vendor,
    connectorVersionId: version.id,
    async close() {
      await worker.close();
      await runner.close();
      await database.close();
      await vendor.close();
      await platform.close();
    },
  };
}

export interface ConnectorOptions {
  token?: string;
  /** The vendor it calls; default the stack's double. */
  vendor?: VendorDouble;
  /** Config besides baseUrl (say idempotencyKeyHeader). */
  config?: Record<string, unknown>;
}

/** Installs http-connector as `name` (enabled) calling the vendor double; answers the install's id. */
export async function installConnector(stack: RunsStack, name: string, options: ConnectorOptions = {}) {
  const vendor = options.vendor ?? stack.vendor;
  const view = await ok<{ id: string }>(
    await stack.platform.fetch('/app-installs', {
      method: 'POST',
      token: options.token ?? (await stack.platform.token()),
      json: {
        name,
        versionId: stack.connectorVersionId,
        enabled: true,
        config: { baseUrl: vendor.url, ...options.config },
        approveHosts: [vendor.host],
      },
    }),
    201,
  );
  return view.id;
}

/**
 * A call_app step of the http-connector's `request` action, GET `path` of the vendor double: id
 * `screen`, its output at `screening`, unless `over` says otherwise (an id, a mapping, a retry…).
 */
export const requestStep = (install: string, path: string, over: Record<string, unknown> = {}) => ({
  id: 'screen',
  type: 'call_app' as const,
  install,
  action: 'request',
  input: { method: 'GET', path },
  outputKey: 'screening',
  ...over,
});

/** A definition with one published version of that body, straight into the tables. */
export const publishDefinition = (
  stack: RunsStack,
  tenantId: string,
  kind: DefinitionKind,
  key: string,
  body: DefinitionBody,
) => publishDefinitionRows(stack.platform.database, tenantId, kind, key, body);

export interface RunErrorView {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

export interface RunAnswer {
  id: string;
  status: string;
  context: unknown;
  error: RunErrorView | null;
  steps: { id: string; status: string; attempts: number; error: RunErrorView | null }[];
}

/** Polls GET /workflow-runs/:id until the run leaves `running` (bounded): how tests wait on a run. */
export async function settledRun(stack: RunsStack, id: string, token?: string, limitMs = 30_000) {
  const bearer = token ?? (await stack.platform.token());
  const giveUpAt = Date.now() + limitMs;
  for (;;) {
    const run = await ok<RunAnswer>(await stack.platform.fetch(`/workflow-runs/${id}`, { token: bearer }));
    if (run.status !== 'running') return run;
    expect(Date.now(), `run ${id} still running after ${limitMs} ms`).toBeLessThan(giveUpAt);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Starts a run of the published `workflow` and waits for its workflow (this process's worker) to end,
 * then reads the run once: a run with long waits is not polled through the api (whose rate limit a
 * minute of polls would reach).
 */
export async function finishedRun(
  stack: RunsStack,
  workflow: string,
  context: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const started = await ok<RunAnswer>(
    await stack.platform.fetch('/workflow-runs', {
      method: 'POST',
      json: { workflow, subjectId: 'subject-1', context },
      headers,
    }),
    201,
  );
  // A workflow that threw leaves its run to settledRun, which fails the test if it stays running.
  await DBOS.retrieveWorkflow(started.id)
    .getResult({ pollingIntervalMs: RESULT_POLLING_MS })
    .catch(() => undefined);
  return settledRun(stack, started.id);
}

/** A run's invocation records, oldest first. */
export const recordsOf = (stack: RunsStack, runId: string) =>
  stack.platform.database.db
    .select()
    .from(appInvocations)
    .where(eq(appInvocations.workflowRunId, runId))
    .orderBy(asc(appInvocations.createdAt));
