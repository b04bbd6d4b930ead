// The service's metrics through a real `platform start --role all` (api and worker in one process, the
// runner in its child, whose recordings, the model requests', reach the parent's; embedded PostgreSQL)
// with METRICS_PORT and an OTLP endpoint set: a run of three app calls (http-connector against a vendor
// double, ai-risk-summary against a model double), a rule set and a decision; an identity-verification
// run whose vendor double's signed webhook completes its session; a webhook for no install. Then /metrics
// is scraped and parsed with a Prometheus text parser: every service.* metric is there with exactly its
// label keys, no label holds an id, the events of the scenario are counted; the worker's engine metrics
// answer on METRICS_PORT + 1; and once the process stops (SIGINT: the SDK flushes), the OTLP receiver
// holds the same metrics.
import net from 'node:net';
import parsePrometheusTextFormat, { type PrometheusFamily as Family } from 'parse-prometheus-text-format';
import { afterAll, afterEach, expect, it } from 'vitest';
import { MODEL_API_KEY, NOTE, SUBJECT } from '../../apps/ai-risk-summary/test/conformance.ts';
import { startModelDouble, startVendorDouble } from '../../packages/app-testing/src/index.ts';
import { prometheusName, SERVICE_METRICS } from '../../src/telemetry/catalogue.ts';
import { freePort } from '../support/free-port.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';
import { installIdv, KYC_WORKFLOW } from './idv-install.ts';
import { type ReadmeStack, startReadmeStack } from './readme-stack.ts';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

const API_KEY = 'idv-demo-1234';
const WEBHOOK_SECRET = 'whsec-demo-5678';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** Labels the exposition adds to every series (the meter's scope) or to a histogram's buckets. */
const EXPOSITION_LABELS = new Set(['otel_scope_name', 'otel_scope_version', 'le']);
/** No case ever opens on this platform, and a histogram with no observation is not exposed. */
const NEVER_RECORDED = new Set(['service.case.time_to_decision']);
/** The service name `npm start` (`--role all`) reports. */
const SERVICE = 'apps-platform-all';

/** A port whose next port is free too (METRICS_PORT + 1 serves the engine's metrics). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const next = net.createServer();
    const free = await new Promise<boolean>((resolve) => {
      next.once('error', () => resolve(false));
      next.listen(port + 1, '0.0.0.0', () => resolve(true));
    });
    if (free) {
      await new Promise<void>((resolve) => next.close(() => resolve()));
      return port;
    }
  }
}

/**
 * A scrape, parsed twice: as metric families, and with histograms read as their `_count`, `_sum` and
 * `_bucket` series (each name's samples joined). The parser folds a histogram's samples into one and drops their labels when they
 * have any (it was written for unlabelled ones), so a labelled histogram's labels and counts are read
 * from its `_count` series, which the second parse keeps as a family of its own.
 */
async function scrape(port: number): Promise<{ families: Family[]; series: Family[] }> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  const untypedHistograms = text
    .split('\n')
    .filter((line) => !(line.startsWith('# TYPE ') && line.endsWith(' histogram')))
    .join('\n');
  return {
    families: parsePrometheusTextFormat(text),
    series: joined(parsePrometheusTextFormat(untypedHistograms)),
  };
}

/** Families of one name as one: a histogram's series interleave (count, sum, buckets of each in turn). */
function joined(families: Family[]): Family[] {
  const byName = new Map<string, Family>();
  for (const family of families) {
    const seen = byName.get(family.name);
    if (seen) seen.metrics.push(...family.metrics);
    else byName.set(family.name, { ...family, metrics: [...family.metrics] });
  }
  return [...byName.values()];
}

function caller(stack: ReadmeStack) {
  return async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${stack.api}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${stack.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : null };
  };
}

it('exposes every service metric with its labels and no id, on /metrics, port + 1 and OTLP', async () => {
  const receiver = await startOtlpReceiver();
  const metricsPort = await freePortPair();
  const vendor = await startVendorDouble([{ method: 'GET', path: '/hello', json: { greeting: 'hi' } }]);
  const model = await startModelDouble({ answer: NOTE, usage: { inputTokens: 812, outputTokens: 143 } });
  try {
    const stack = await startReadmeStack('metrics', 'apps-platform-e2e-metrics-', {
      METRICS_PORT: String(metricsPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      LOG_LEVEL: 'warn',
    });
    expect(stack.platform.stdout).toContain(`  Metrics    http://0.0.0.0:${metricsPort}/metrics`);
    expect(stack.platform.stdout).toContain(`  Engine     http://0.0.0.0:${metricsPort + 1}/metrics`);
    const call = caller(stack);
    // biome-ignore lint/suspicious/noExplicitAny: the answers are read as JSON, checked by their status
    const ok = async (reply: Promise<{ status: number; text: string; body: any }>, status = 200) => {
      const answered = await reply;
      expect(answered.status, answered.text).toBe(status);
      return answered.body;
    };
    await ok(
      call('PUT', '/tenants/me/settings', {
        approvals: { required: false, fourEyes: true },
        collection: { flowUrl: 'https://collect.example.com' },
      }),
    );

    // Installs: http-connector against the vendor double, ai-risk-summary against the model double.
    const connector = await ok(call('GET', '/apps/http-connector/versions'));
    await ok(
      call('POST', '/app-installs', {
        name: 'vendor',
        versionId: connector.items[0].id,
        enabled: true,
        config: { baseUrl: vendor.url },
        approveHosts: [vendor.host],
      }),
      201,
    );
    const summary = await ok(call('GET', '/apps/ai-risk-summary/versions'));
    const modelHost = new URL(model.url).host;
    const riskConfig = { provider: 'openai', baseUrl: `${model.url}/v1`, model: 'gpt-4o-mini' };
    const riskVersion = summary.items[0].id;
    const riskInstall = {
      versionId: riskVersion,
      enabled: false,
      config: riskConfig,
      approveHosts: [modelHost],
    };
    await ok(call('POST', '/app-installs', { name: 'risk', ...riskInstall }), 201);
    await ok(call('POST', '/app-installs/risk/secrets/MODEL_API_KEY', { value: MODEL_API_KEY }));
    await ok(
      call('PUT', '/app-installs/risk', { versionId: riskVersion, enabled: true, config: riskConfig }),
    );

    // A rule set over the run's context, and a workflow calling both installs, the rule set, deciding.
    await ok(
      call('POST', '/rule-sets', {
        key: 'screen',
        body: {
          rules: [{ key: 'vendor-ok', type: 'condition', when: { path: 'vendor.status', equals: 200 } }],
        },
      }),
      201,
    );
    await ok(call('POST', '/rule-sets/screen/publish'));
    await ok(
      call('POST', '/workflow-definitions', {
        key: 'hello',
        body: {
          steps: [
            {
              id: 'fetch',
              type: 'call_app',
              install: 'vendor',
              action: 'request',
              input: { method: 'GET', path: '/hello' },
              outputKey: 'vendor',
            },
            {
              id: 'note',
              type: 'call_app',
              install: 'risk',
              action: 'summarize',
              input: { subject: SUBJECT },
              outputKey: 'note',
            },
            { id: 'screen', type: 'rule_set', ruleSet: 'screen', outputKey: 'screening' },
            {
              id: 'decide',
              type: 'decide',
              branches: [{ when: { path: 'screening.passed', equals: true }, outcome: 'approve' }],
              otherwise: 'review',
            },
          ],
        },
      }),
      201,
    );
    await ok(call('POST', '/workflow-definitions/hello/publish'));
    const hello = await ok(
      call('POST', '/workflow-runs', { workflow: 'hello', subjectId: 'subject-1' }),
      201,
    );
    await expect
      .poll(async () => (await call('GET', `/workflow-runs/${hello.id}`)).body.status, {
        timeout: 60_000,
        interval: 50,
      })
      .toBe('completed');

    // An asynchronous verification: the run waits, the vendor double's signed webhook completes it.
    const { host } = await stack.startVendor([
      '--idv',
      '--webhook-secret',
      WEBHOOK_SECRET,
      '--api-key',
      API_KEY,
    ]);
    await installIdv(stack, host, { apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET });
    await ok(
      call('POST', '/workflow-definitions', {
        key: 'kyc',
        body: KYC_WORKFLOW,
      }),
      201,
    );
    await ok(call('POST', '/workflow-definitions/kyc/publish'));
    const kyc = await ok(
      call('POST', '/workflow-runs', {
        workflow: 'kyc',
        subjectId: 'applicant-7',
        context: { applicant: { firstName: 'Ada', lastName: 'Lovelace' } },
      }),
      201,
    );
    let waiting: { status: string; context: Record<string, unknown> } = { status: '', context: {} };
    await expect
      .poll(
        async () => {
          waiting = (await call('GET', `/workflow-runs/${kyc.id}`)).body;
          return waiting.status;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe('waiting_callback');
    const sessionId = waiting.context.verificationExternalId as string;
    const decided = await fetch(`http://${host}/__double/sessions/${sessionId}/decide`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(decided.status).toBe(200);
    await expect
      .poll(async () => (await call('GET', `/workflow-runs/${kyc.id}`)).body.status, {
        timeout: 60_000,
        interval: 50,
      })
      .toBe('completed');

    // A webhook for an install that does not exist: refused.
    const unknown = await fetch(`${stack.api}/webhooks/app-installs/7d0f3c52-1a3e-4c1b-9a55-2b8f0e6c1d11`, {
      method: 'POST',
      body: '{}',
    });
    expect(unknown.status).toBe(404);

    // The scrape, parsed.
    const { families, series } = await scrape(metricsPort);
    const typed = new Map(families.map((f) => [f.name, f]));
    const byName = new Map(series.map((f) => [f.name, f]));
    const labelsOf = (f: Family) => f.metrics.map((m) => m.labels ?? {});
    const TYPES = { histogram: 'HISTOGRAM', counter: 'COUNTER', updown: 'GAUGE', gauge: 'GAUGE' };
    for (const spec of SERVICE_METRICS) {
      const name = prometheusName(spec);
      if (NEVER_RECORDED.has(spec.name)) {
        expect(typed.get(name), spec.name).toBeUndefined();
        continue;
      }
      expect(typed.get(name)?.type, `${spec.name} missing from /metrics`).toBe(TYPES[spec.kind]);
      const family = byName.get(spec.kind === 'histogram' ? `${name}_count` : name);
      expect(family?.metrics.length, spec.name).toBeGreaterThan(0);
      for (const labels of labelsOf(family as Family)) {
        const keys = Object.keys(labels).filter((k) => !EXPOSITION_LABELS.has(k));
        expect(keys.sort(), spec.name).toEqual([...spec.labels].sort());
      }
    }
    for (const family of series) {
      for (const labels of labelsOf(family)) {
        for (const value of Object.values(labels)) expect(value, family.name).not.toMatch(UUID);
      }
    }

    // What the scenario did, counted.
    const value = (name: string, labels: Record<string, string> = {}) => {
      const sample = byName
        .get(name)
        ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
      return Number(sample?.value ?? Number.NaN);
    };
    const invocation = 'service_app_invocation_duration_count';
    const labels = (install: string, app: string, action: string, status: string) => ({
      tenant: 'metrics',
      app,
      install,
      action,
      status,
    });
    expect(value(invocation, labels('vendor', 'http-connector', 'request', 'success'))).toBe(1);
    expect(value(invocation, labels('risk', 'ai-risk-summary', 'summarize', 'success'))).toBe(1);
    expect(value(invocation, labels('idv', 'identity-verification', 'start_verification', 'pending'))).toBe(
      1,
    );
    expect(value('service_app_call_duration_count')).toBe(3);
    expect(value('service_app_ai_requests_total')).toBe(1);
    expect(value('service_app_ai_tokens_total')).toBe(812 + 143);
    expect(value('service_app_ai_duration_count')).toBe(1);
    expect(value('service_rule_set_evaluation_duration_count')).toBe(1);
    expect(value('service_rule_evaluation_duration_count')).toBe(1);
    expect(value('service_decision_count_total')).toBe(2);
    expect(value('service_workflow_run_duration_count')).toBe(2);
    expect(value('service_workflow_run_active')).toBe(0);
    expect(value('service_app_calls_in_flight')).toBe(0);
    expect(value('service_app_callback_wait_count')).toBe(1);
    expect(value('service_app_webhooks_total', { result: 'completed' })).toBe(1);
    expect(value('service_app_webhooks_total', { result: 'refused' })).toBe(1);
    expect(value('service_app_webhooks_total', { result: 'failed' })).toBe(0);
    expect(value('service_app_fallback_count_total', { reason: 'outage' })).toBe(0);
    expect(value('service_app_circuit_open', { state: 'open' })).toBe(0);
    expect(value('service_approval_pending', { kind: 'app_install_change' })).toBe(0);
    expect(value('service_case_open')).toBe(0);

    // The engine's core metrics on port + 1: its queues, nothing of the service's.
    const engine = (await scrape(metricsPort + 1)).families;
    const inFlight = engine.find((f) => f.name === 'dbos_workflows_in_flight');
    expect(inFlight?.type).toBe('GAUGE');
    // Each queue in each status, at zero when empty (a workflow on no queue shows as `none` while it runs).
    expect(inFlight?.metrics.map((m) => `${m.labels?.queue}/${m.labels?.status}`)).toEqual(
      expect.arrayContaining(['platform/ENQUEUED', 'platform/PENDING', 'apps/ENQUEUED', 'apps/PENDING']),
    );
    for (const family of engine.filter((f) => f.name.startsWith('dbos_'))) {
      for (const sample of family.metrics) {
        const keys = Object.keys(sample.labels ?? {}).filter((k) => !EXPOSITION_LABELS.has(k));
        expect(keys.sort(), family.name).toEqual(['queue', 'status']);
        for (const value of Object.values(sample.labels ?? {})) expect(value, family.name).not.toMatch(UUID);
      }
    }
    expect(engine.map((f) => f.name).sort()).toEqual(
      [
        'dbos_workflows_in_flight',
        'dbos_workflows_oldest_age',
        'dbos_workflows_recovering',
        'target_info',
      ].sort(),
    );

    // Stopped: what the SDK held was pushed to the collector on the way out.
    const stopped = await stack.stop();
    expect(stopped.platform.code, stopped.platform.stderr).toBe(0);
    const pushedNames = new Set(receiver.metricNames(SERVICE));
    for (const spec of SERVICE_METRICS) {
      if (!NEVER_RECORDED.has(spec.name)) expect(pushedNames.has(spec.name), spec.name).toBe(true);
    }
    const invocations = receiver.metricPoints(SERVICE, 'service.app.invocation.duration');
    expect(invocations).toContainEqual(labels('vendor', 'http-connector', 'request', 'success'));
    expect(receiver.bodies.metrics.join('\n')).not.toMatch(UUID);
  } finally {
    await model.close();
    await vendor.close();
    await receiver.close();
  }
}, 300_000);
