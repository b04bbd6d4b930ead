// Spans of one process through the real SDK (startTelemetry with an in-memory exporter beside it) and the
// real api and runner in this process (docs/telemetry.md "Traces", "Logs"): request spans and what is
// untraced, a rule set's evaluation down to the runner's request, a run's trace link for ops:read holders,
// DBOS's spans as the engine makes them, what the exporters are handed, and trace ids on log lines.
import { randomUUID } from 'node:crypto';
import Module from 'node:module';
import { Writable } from 'node:stream';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPool } from '../../src/db/preparing-pool.ts';
import { createLogger } from '../../src/logging.ts';
import { workflowRuns } from '../../src/runs/tables.ts';
import { inActivity, startTelemetry, type Telemetry } from '../../src/telemetry/index.ts';
import { ok } from '../installs/support.ts';
import {
  finishedRun,
  installConnector,
  publishDefinition,
  type RunsStack,
  startRunsStack,
} from '../runs/stack.ts';
import { until } from '../runs/worker-process.ts';
import { statementsWhile } from '../support/statements.ts';

const memory = new InMemorySpanExporter();
/** `require` as Node made it, before the SDK started (which must not hook it: docs/telemetry.md "Cost"). */
const nodeRequire = Module.prototype.require;
let telemetry: Telemetry | null;
let stack: RunsStack;
let tenantId: string;

beforeAll(async () => {
  telemetry = await startTelemetry(
    {
      enabled: true,
      otlpEndpoint: null,
      metricsPort: null,
      serviceName: null,
      sampler: 'always_on',
      samplerRatio: 1,
      pgStatements: false,
      traceUrlTemplate: null,
    },
    { serviceName: 'apps-platform-test', spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] },
  );
  stack = await startRunsStack([
    { method: 'GET', path: '/score', respond: () => ({ json: { risk: 'low' } }) },
  ]);
  tenantId = await stack.platform.tenantId();
  await installConnector(stack, 'scorer');
  await publishDefinition(stack, tenantId, 'rule_set', 'onboarding', {
    rules: [
      { key: 'adult', type: 'condition', when: { path: 'age', gte: 18 } },
      {
        key: 'vendor-risk',
        type: 'app',
        install: 'scorer',
        action: 'request',
        input: { method: 'GET', path: '/score' },
        resultPath: 'body.risk',
        failWhen: { equals: 'high' },
      },
    ],
  });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await telemetry?.shutdown();
});

const spans = () => memory.getFinishedSpans();
const named = (name: string) => spans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
/** The one span of `name` once it ended (a server span ends after its answer is sent). */
const ended = (name: string, where: (span: ReadableSpan) => boolean = () => true) =>
  until(name, async () => named(name).find(where) ?? null, 10_000);

describe('request spans', () => {
  it('a request is one server span named after its route, under the caller’s traceparent', async () => {
    const traceId = randomUUID().replaceAll('-', '');
    const response = await stack.platform.fetch('/rule-sets/onboarding/evaluate', {
      method: 'POST',
      json: { data: { age: 30 } },
      headers: { traceparent: `00-${traceId}-1111111111111111-01` },
    });
    expect((await ok(response)) as unknown).toMatchObject({ passed: true });
    const request = await ended('POST /rule-sets/:key/evaluate', (s) => s.spanContext().traceId === traceId);
    expect(parentOf(request)).toBe('1111111111111111');
    expect(request.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': '/rule-sets/:key/evaluate',
      'http.response.status_code': 200,
    });

    // The rule set and each rule, the app rule's attempt, and the runner's request under it.
    const ruleSet = named('rule_set.evaluate').find((s) => parentOf(s) === request.spanContext().spanId);
    expect(ruleSet?.attributes).toEqual({
      'rule_set.key': 'onboarding',
      'rule_set.version': 1,
      'rule_set.passed': true,
      'service.tenant_id': tenantId,
    });
    const rules = named('rule.evaluate').filter((s) => parentOf(s) === ruleSet?.spanContext().spanId);
    expect(rules.map((s) => s.attributes)).toEqual([
      { 'rule.key': 'adult', 'rule.type': 'condition', 'rule.status': 'passed' },
      { 'rule.key': 'vendor-risk', 'rule.type': 'app', 'rule.status': 'passed' },
    ]);
    const invoke = named('app.invoke').find((s) => parentOf(s) === rules[1]?.spanContext().spanId);
    expect(invoke?.attributes).toMatchObject({
      'app.name': 'http-connector',
      'app.action': 'request',
      'app.attempt': 1,
      'app.idempotency_key': expect.stringMatching(/^eval-.+:rule:vendor-risk$/),
      'app.outcome': 'success',
    });
    const runnerRequest = await ended('POST /v1/invoke', (s) => s.spanContext().traceId === traceId);
    expect(parentOf(runnerRequest)).toBe(invoke?.spanContext().spanId);

    // The request's completion line joins its trace.
    const line = stack.platform.logs.find(
      (l) =>
        l.msg === 'request completed' && l.route === '/rule-sets/:key/evaluate' && l.trace_id === traceId,
    );
    expect(line?.span_id).toBe(request.spanContext().spanId);
  });

  it('health and metrics paths have no span; a request no route matched is named by its method', async () => {
    memory.reset();
    expect((await fetch(`${stack.platform.url}/health`)).status).toBe(200);
    expect((await fetch(`${stack.platform.url}/no-such-route`)).status).toBe(404);
    const unmatched = await ended('GET');
    expect(unmatched.attributes).toEqual({ 'http.request.method': 'GET', 'http.response.status_code': 404 });
    expect(spans().filter((s) => s.name.includes('/health'))).toEqual([]);
  });
});

describe('a run’s link to its trace', () => {
  const TEMPLATE = 'https://traces.example.test/{traceId}';
  const sampled = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;

  async function runWith(traceParent: string | null): Promise<string> {
    const [row] = await stack.platform.database.db
      .insert(workflowRuns)
      .values({
        tenantId,
        definitionId: randomUUID(),
        definitionVersionId: randomUUID(),
        workflowKey: 'linked',
        version: 1,
        subjectId: 's-1',
        context: {},
        createdBy: 'user:ada',
        status: 'completed',
        traceParent,
      })
      .returning({ id: workflowRuns.id });
    return row?.id as string;
  }
  const read = async (id: string, permissions: string[]) =>
    (await ok(
      await stack.platform.fetch(`/workflow-runs/${id}`, {
        token: await stack.platform.token({ permissions }),
      }),
    )) as Record<string, unknown>;

  it('is answered to ops:read holders only, when the template is set and the trace was recorded', async () => {
    const telemetrySettings = stack.platform.config.telemetry;
    telemetrySettings.traceUrlTemplate = TEMPLATE;
    const id = await runWith(sampled);
    expect((await read(id, ['ops:read'])).traceUrl).toBe(`https://traces.example.test/${'a'.repeat(32)}`);
    expect(await read(id, [])).not.toHaveProperty('traceUrl');
    expect(await read(await runWith(null), ['ops:read'])).not.toHaveProperty('traceUrl');
    expect(await read(await runWith(sampled.replace(/01$/, '00')), ['ops:read'])).not.toHaveProperty(
      'traceUrl',
    );
    telemetrySettings.traceUrlTemplate = null;
    expect(await read(id, ['ops:read'])).not.toHaveProperty('traceUrl');
  });
});

describe('a run’s workflow in its request’s trace', () => {
  it('joins the trace of the request that started it, told by the workflow’s input, not read from the run', async () => {
    await publishDefinition(stack, tenantId, 'workflow', 'traced', {
      steps: [{ id: 'decide', type: 'decide', branches: [], otherwise: 'approve' }],
    });
    memory.reset();
    const traceId = randomUUID().replaceAll('-', '');
    const { sent, value: run } = await statementsWhile(() =>
      finishedRun(stack, 'traced', {}, { traceparent: `00-${traceId}-2222222222222222-01` }),
    );
    expect(run.status).toBe('completed');
    const workflow = await ended(
      'workflow.run runs.workflow',
      (s) => s.attributes['service.run_id'] === run.id,
    );
    expect(workflow.spanContext().traceId).toBe(traceId);
    expect(workflow.attributes).toMatchObject({
      'service.run_id': run.id,
      'service.tenant_id': tenantId,
      'service.definition.key': 'traced',
    });
    // The read a continuation still makes for its trace (run-trace.ts) was not made for the run's own.
    expect(sent.filter((text) => text.startsWith('select "trace_parent"'))).toEqual([]);
  });
});

describe('PostgreSQL’s client spans', () => {
  it('one span a query inside a trace, a child of it; none for taking the connection, outside a trace or from the engine’s pool; require left as Node made it', async () => {
    memory.reset();
    const pool = stack.platform.database.pool;
    await pool.query('select 1 as untraced');
    // The engine's pool (DBOS's statements) makes none: its workflow and step spans stand for them.
    const engine = preparingPool({ connectionString: pool.options.connectionString, max: 1 });
    const outer = trace.getTracer('test').startSpan('outer');
    await context.with(trace.setSpan(context.active(), outer), async () => {
      await engine.query('select $1::int as engine', [3]);
      await pool.query('select 2 as traced');
    });
    outer.end();
    await engine.end();
    const database = () =>
      spans().filter((span) => span.instrumentationScope.name === '@opentelemetry/instrumentation-pg');
    // The untraced query ended first: had it a span, that span would be exported by the time this one is.
    const traced = await until(
      'the query’s span',
      async () => database().find((span) => parentOf(span) === outer.spanContext().spanId) ?? null,
      10_000,
    );
    expect(traced.name).toMatch(/^pg\.query:SELECT /);
    expect(database()).toEqual([traced]);
    expect(Module.prototype.require).toBe(nodeRequire);
  });
});

describe('the engine’s spans and what is exported', () => {
  const tracer = () => trace.getTracer('dbos-tracer');

  it('a DBOS workflow span is not recorded, nor what starts under it; a step span gets the activity attributes', async () => {
    memory.reset();
    const workflow = tracer().startSpan('runs.workflow', { attributes: { operationType: 'workflow' } });
    expect(workflow.isRecording()).toBe(false);
    const under = context.with(trace.setSpan(context.active(), workflow), () =>
      tracer().startSpan('pg.query'),
    );
    expect(under.isRecording()).toBe(false);
    await inActivity({ 'service.run_id': 'r-1', 'service.step_id': 'check' }, async () => {
      tracer()
        .startSpan('check:attempt:1', { attributes: { operationType: 'step' } })
        .end();
      tracer().startSpan('not-a-step').end();
    });
    expect(named('check:attempt:1')[0]?.attributes).toMatchObject({
      'service.run_id': 'r-1',
      'service.step_id': 'check',
    });
    expect(named('not-a-step')[0]?.attributes).toEqual({});
  });

  it('the exporters get no SQL text (OTEL_PG_STATEMENTS off) and no query parameters in messages', () => {
    memory.reset();
    const span = tracer().startSpan('pg.query:SELECT', {
      attributes: {
        'db.system.name': 'postgresql',
        'db.query.text': 'select $1',
        'db.namespace': 'platform',
      },
    });
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'Failed query: select $1\nparams: Zoë Marker' });
    span.recordException({ name: 'Error', message: 'Failed query: select $1\nparams: Zoë Marker' });
    span.end();
    const [exported] = named('pg.query:SELECT');
    expect(exported?.attributes).toEqual({ 'db.system.name': 'postgresql', 'db.namespace': 'platform' });
    expect(exported?.status.message).toBe('Failed query: select $1');
    expect(JSON.stringify(exported?.events)).not.toContain('Zoë');
  });
});

describe('log lines', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'apps-platform-test',
    level: 'info',
    env: 'test',
    destination: new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  });

  it('carry trace_id and span_id inside a span, and nothing outside one', () => {
    lines.length = 0;
    trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info('inside');
      span.end();
      expect(lines[0]).toMatchObject({
        trace_id: span.spanContext().traceId,
        span_id: span.spanContext().spanId,
      });
    });
    logger.info('outside');
    expect(lines[1]).not.toHaveProperty('trace_id');
    expect(lines[1]).not.toHaveProperty('span_id');
  });

  it('carry nothing of a trace when telemetry is off', async () => {
    await telemetry?.shutdown();
    telemetry = null;
    lines.length = 0;
    trace.getTracer('test').startActiveSpan('work', (span) => {
      logger.info('inside, telemetry off');
      span.end();
    });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[0]).not.toHaveProperty('span_id');
  });
});
