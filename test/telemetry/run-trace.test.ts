// One run's trace across real processes (docs/telemetry.md "Traces"): `platform start --role api`,
// `--role worker` and `--role runner` on one database, each exporting to a collector double in this
// process (OTLP/HTTP JSON). The release catalogue's http-connector, installed with a secret against a vendor
// double, is called by a run's call_app step; an outbound endpoint is pinged and gets the run's
// run.completed. Once the processes stopped (flushing what they hold), the spans of the run form one tree
// api → worker → runner with the attributes the docs name; the api (OTEL_PG_STATEMENTS=true) writes SQL text
// on its database spans, the worker (default) none; and no span or metric holds the vendor's address, the
// endpoint's, the install's secret or the applicant's data. Deliveries carry no trace context.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVendorDouble, type VendorDouble } from '../../packages/app-testing/src/index.ts';
import { type Database, openDatabase } from '../../src/db/pool.ts';
import { HTTP_DURATION_BUCKETS } from '../../src/telemetry/http.ts';
import { ensureTenant } from '../../src/tenants/service.ts';
import { signToken } from '../auth/sign.ts';
import { type Receiver, startReceiver } from '../outbound-webhooks/receiver.ts';
import { startApiProcess, startRunnerRole, startWorkerProcess, until } from '../runs/worker-process.ts';
import { createTestDatabase } from '../support/database.ts';
import { freePort } from '../support/free-port.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { cleanUpProcesses, removeTempDirs, tempDir } from '../support/processes.ts';

const SLOW = 240_000;
const SECRET = 'sk-trace-secret-5f0c1d';
/** Applicant data in the run's context: never on a span, not even as a query parameter. */
const APPLICANT = 'applicant-Zoë-Marker-93b1';
const ISSUER = 'https://idp.trace-test.example/';
const AUDIENCE = 'apps-platform';
const TEMPLATE = 'https://traces.example.test/trace/{traceId}';
const SERVER = 2;

let otlp: OtlpReceiver;
let vendor: VendorDouble;
let endpoint: Receiver;
let jwks: http.Server;
let idpKey: CryptoKey;
let database: Database;
let tenantId: string;
const processes: Record<'api' | 'worker' | 'runner', ChildProcess | null> = {
  api: null,
  worker: null,
  runner: null,
};

beforeAll(async () => {
  [otlp, endpoint] = await Promise.all([startOtlpReceiver(), startReceiver()]);
  vendor = await startVendorDouble([
    { method: 'GET', path: '/screen', respond: () => ({ json: { verdict: 'clear' } }) },
  ]);
  const pair = await generateKeyPair('ES256');
  idpKey = pair.privateKey;
  const keys = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256' }] });
  jwks = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(keys);
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const databaseUrl = await createTestDatabase();
  database = openDatabase(databaseUrl);
  tenantId = (await ensureTenant(database.db, 'traced')).tenant.id;
  await startProcesses(databaseUrl);
}, SLOW);
afterEach(cleanUpProcesses);
afterAll(async () => {
  await Promise.all([otlp?.close(), vendor?.close(), endpoint?.close(), database?.close()]);
  await new Promise((resolve) => jwks?.close(resolve));
  await removeTempDirs();
});

async function startProcesses(databaseUrl: string): Promise<void> {
  const [apiPort, internalPort, runnerPort] = [await freePort(), await freePort(), await freePort()];
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
  const shared = {
    DATABASE_URL: databaseUrl,
    APP_RUNNER_URL: `http://127.0.0.1:${runnerPort}`,
    APP_RUNNER_TOKEN: 'runner-token-for-the-trace-test',
    APP_CALL_TOKEN_SECRET: 'call-token-secret-for-the-trace-test',
    SECRET_STORE_KEY: 'cd'.repeat(32),
    APP_RUNNER_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_TRACES_SAMPLER: 'always_on',
  };
  processes.runner = await startRunnerRole(
    {
      ...shared,
      API_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
      DATA_DIR: await tempDir('trace-runner-'),
    },
    runnerPort,
  );
  processes.api = await startApiProcess(
    {
      ...shared,
      API_INTERNAL_PORT: String(internalPort),
      DATA_DIR: await tempDir('trace-api-'),
      AUTH_JWKS_URL: jwksUrl,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      OTEL_PG_STATEMENTS: 'true',
      TRACE_URL_TEMPLATE: TEMPLATE,
    },
    apiPort,
  );
  apiUrl = `http://127.0.0.1:${apiPort}`;
  processes.worker = await startWorkerProcess({
    ...shared,
    DATA_DIR: await tempDir('trace-worker-'),
    WORKER_EXECUTOR_ID: 'trace-test-worker',
  });
}

let apiUrl = '';

/** A SIGTERM, and the process's exit: it stops its parts, telemetry last, flushing spans and metrics. */
async function stop(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.kill('SIGTERM');
  await closed;
}

const token = (permissions: string[] = []) =>
  signToken(
    idpKey,
    { tenant: tenantId, sub: 'user:ada', name: 'Ada', roles: ['admin'], permissions },
    { kid: 'k1', issuer: ISSUER, audience: AUDIENCE },
  );

async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  bearer: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
}

/** The spans of a trace by id, and the one whose parent is each span. */
const byId = (spans: ReceivedSpan[]) => new Map(spans.map((span) => [span.spanId, span]));

/** The chain of names from a span up to its trace's root. */
function ancestry(span: ReceivedSpan, spans: Map<string, ReceivedSpan>): string[] {
  const names: string[] = [];
  for (
    let at: ReceivedSpan | undefined = span;
    at;
    at = at.parentSpanId ? spans.get(at.parentSpanId) : undefined
  )
    names.push(at.name);
  return names;
}

describe('a run with a call_app step, traced across the api, the worker and the runner', () => {
  it(
    'forms one tree from the api’s request to the runner’s, with the documented attributes and nothing private',
    async () => {
      const admin = await token(['ops:read']);
      const versions = await call<{ items: { id: string }[] }>('GET', '/apps/http-connector/versions', admin);
      expect(versions.status).toBe(200);
      const versionId = versions.body.items[0]?.id as string;
      const config = { baseUrl: vendor.url, auth: { type: 'apiKey', header: 'X-Api-Key' } };
      const install = await call<{ id: string }>('POST', '/app-installs', admin, {
        name: 'screening',
        versionId,
        enabled: false,
        config,
        approveHosts: [vendor.host],
      });
      expect(install.status, JSON.stringify(install.body)).toBe(201);
      expect(
        (await call('POST', '/app-installs/screening/secrets/API_KEY', admin, { value: SECRET })).status,
      ).toBe(200);
      expect(
        (await call('PUT', '/app-installs/screening', admin, { versionId, enabled: true, config })).status,
      ).toBe(200);
      const hook = await call<{ id: string }>('POST', '/webhook-endpoints', admin, {
        url: `${endpoint.url}/hooks/runs`,
        events: ['run.completed'],
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      expect((await call('POST', `/webhook-endpoints/${hook.body.id}/test`, admin)).status).toBe(200);

      const definition = await call('POST', '/workflow-definitions', admin, {
        key: 'screen',
        body: {
          steps: [
            {
              id: 'check',
              type: 'call_app',
              install: 'screening',
              action: 'request',
              input: { method: 'GET', path: '/screen' },
              outputKey: 'screening',
            },
          ],
        },
      });
      expect(definition.status, JSON.stringify(definition.body)).toBe(201);
      expect((await call('POST', '/workflow-definitions/screen/publish', admin)).status).toBe(200);

      // The caller's own trace context: the api's span continues it.
      const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const started = await call<{ id: string }>(
        'POST',
        '/workflow-runs',
        admin,
        { workflow: 'screen', subjectId: 'subject-1', context: { applicant: { name: APPLICANT } } },
        // With an Idempotency-Key the run is written in a transaction (the key claimed with it): its span.
        { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01`, 'idempotency-key': 'trace-run-1' },
      );
      expect(started.status, JSON.stringify(started.body)).toBe(201);
      const runId = started.body.id;
      const run = await until('the run’s end', async () => {
        const read = await call<{ status: string; traceUrl?: string }>(
          'GET',
          `/workflow-runs/${runId}`,
          admin,
        );
        return read.body.status === 'running' ? null : read.body;
      });
      expect(run.status).toBe('completed');
      // ops:read sees the link to the trace the request continued; without it, no link.
      expect(run.traceUrl).toBe(TEMPLATE.replace('{traceId}', callerTrace));
      const plain = await call<Record<string, unknown>>('GET', `/workflow-runs/${runId}`, await token());
      expect(plain.body).not.toHaveProperty('traceUrl');

      // The run's run.completed reaches the endpoint (the worker's sender): with the ping, no trace context.
      await until('the run.completed delivery', async () =>
        endpoint.received.some((r) => r.headers['x-service-event'] === 'run.completed') ? true : null,
      );
      for (const delivery of endpoint.received) {
        expect(delivery.headers).not.toHaveProperty('traceparent');
        expect(delivery.headers).not.toHaveProperty('tracestate');
        expect(delivery.headers).not.toHaveProperty('baggage');
      }
      expect(endpoint.received.map((r) => r.headers['x-service-event'])).toContain('ping');

      await Promise.all([stop(processes.api), stop(processes.worker), stop(processes.runner)]);

      const spans = otlp.spans().filter((span) => span.traceId === callerTrace);
      const tree = byId(spans);
      const one = (service: string, name: string) => {
        const found = spans.filter((s) => s.service === `apps-platform-${service}` && s.name === name);
        expect(
          found.map((s) => s.name),
          `${service}: ${name} in ${spans.map((s) => s.name)}`,
        ).toHaveLength(1);
        return found[0] as ReceivedSpan;
      };

      // The api: the request's server span, a child of the caller's span, and the engine's client span.
      const request = one('api', 'POST /workflow-runs');
      expect(request.kind).toBe(SERVER);
      expect(request.parentSpanId).toBe('00f067aa0ba902b7');
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/workflow-runs',
        'http.response.status_code': 201,
      });
      const enqueue = one('api', 'workflow.start runs.workflow');
      expect(enqueue.parentSpanId).toBe(request.spanId);
      expect(enqueue.attributes).toMatchObject({ 'service.run_id': runId, 'service.workflow_id': runId });

      // The worker: the run's workflow span under the request, its DBOS steps as activity spans.
      const workflow = one('worker', 'workflow.run runs.workflow');
      expect(workflow.parentSpanId).toBe(request.spanId);
      const activity = {
        'service.run_id': runId,
        'service.workflow_id': runId,
        'service.tenant_id': tenantId,
        'service.definition.key': 'screen',
      };
      expect(workflow.attributes).toMatchObject(activity);
      const attemptStep = one('worker', 'check:attempt:1');
      expect(attemptStep.parentSpanId).toBe(workflow.spanId);
      expect(attemptStep.attributes).toMatchObject({ ...activity, 'service.step_id': 'check' });

      // The attempt, and the runner's server span under it.
      const invoke = one('worker', 'app.invoke');
      expect(invoke.parentSpanId).toBe(attemptStep.spanId);
      expect(invoke.attributes).toMatchObject({
        'app.name': 'http-connector',
        'app.install_id': install.body.id,
        'app.action': 'request',
        'app.attempt': 1,
        'app.idempotency_key': `${runId}:check`,
        'app.call_id': expect.any(String),
        'app.outcome': 'success',
      });
      const runnerRequest = one('runner', 'POST /v1/invoke');
      expect(runnerRequest.kind).toBe(SERVER);
      expect(runnerRequest.parentSpanId).toBe(invoke.spanId);
      expect(ancestry(runnerRequest, tree)).toEqual([
        'POST /v1/invoke',
        'app.invoke',
        'check:attempt:1',
        'workflow.run runs.workflow',
        'POST /workflow-runs',
      ]);

      // Every span of the trace hangs from the caller's span: one tree, no orphan.
      for (const span of spans) {
        const root = ancestry(span, tree).at(-1);
        expect(root, span.name).toBe('POST /workflow-runs');
      }

      // Database spans: the api's with SQL text (OTEL_PG_STATEMENTS=true), the worker's without.
      const dbSpans = (service: string) =>
        spans.filter(
          (s) => s.service === `apps-platform-${service}` && s.attributes['db.system.name'] === 'postgresql',
        );
      expect(dbSpans('api').some((s) => typeof s.attributes['db.query.text'] === 'string')).toBe(true);
      expect(dbSpans('api').map((s) => s.name)).toContain('db.transaction');
      expect(dbSpans('worker').length).toBeGreaterThan(0);
      for (const span of dbSpans('worker')) {
        expect(span.attributes).not.toHaveProperty('db.statement');
        expect(span.attributes).not.toHaveProperty('db.query.text');
      }

      // Nothing private anywhere the processes exported: no vendor or endpoint address, secret or applicant.
      // The api's requests measured by route, never by path or id.
      expect(otlp.metricPoints('apps-platform-api', 'http.server.request.duration')).toContainEqual({
        'http.request.method': 'POST',
        'http.route': '/workflow-runs',
        'http.response.status_code': 201,
      });
      // In seconds, with the bucket bounds the semantic conventions advise for it (not the SDK's, made for ms).
      const bounds = otlp.histogramBounds('apps-platform-api', 'http.server.request.duration');
      expect(bounds.length).toBeGreaterThan(0);
      for (const bound of bounds) expect(bound).toEqual(HTTP_DURATION_BUCKETS);
      // PostgreSQL's instrumentation makes spans only: its db.client.* metrics are not the platform's.
      expect(otlp.bodies.metrics.join('\n')).not.toContain('db.client.');
      const exported = [...otlp.bodies.traces, ...otlp.bodies.metrics].join('\n');
      const endpointHost = new URL(endpoint.url).host;
      for (const needle of [vendor.host, vendor.url, endpointHost, endpoint.url, SECRET, APPLICANT]) {
        expect(exported.includes(needle), needle).toBe(false);
      }
      // The vendor's request itself is untraced: no span names its port.
      const vendorPort = Number(new URL(vendor.url).port);
      const endpointPort = Number(new URL(endpoint.url).port);
      for (const span of otlp.spans()) {
        for (const value of Object.values(span.attributes)) {
          expect([vendorPort, endpointPort], span.name).not.toContain(value);
        }
      }
    },
    SLOW,
  );
});
