// `app collector-double`, the collector a newcomer runs to see a run's trace without Docker: its tree rule
// row by row, its reading of OTLP/HTTP JSON, and the double itself fed by the OpenTelemetry SDK's own OTLP
// exporter (what the platform's processes send), then the command as a process.

import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CollectedSpan,
  spansOf,
  startCollectorDouble,
  traceTree,
} from '../../src/app-cli/collector-double.ts';
import { APP_BIN, baseEnv, cleanUpProcesses, signal, startServingCommand } from '../support/processes.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const span = (
  spanId: string,
  parentSpanId: string | null,
  name: string,
  startMs: number,
  ms: number,
  extra: Partial<CollectedSpan> = {},
): CollectedSpan => ({
  service: 'apps-platform-all',
  traceId: TRACE,
  spanId,
  parentSpanId,
  name,
  startNs: BigInt(startMs) * 1_000_000n,
  endNs: BigInt(startMs + ms) * 1_000_000n,
  failed: false,
  ...extra,
});

describe('traceTree', () => {
  it.each([
    ['a root alone', [span('a', null, 'GET /x', 0, 2)], 'GET /x  apps-platform-all  2.0 ms\n'],
    [
      'children in the order they started, whatever order they arrived in, nested with their own',
      [
        span('c', 'a', 'second', 5, 1),
        span('a', null, 'root', 0, 10),
        span('b', 'a', 'first', 1, 3),
        span('d', 'b', 'inner', 2, 1, { service: 'apps-platform-runner' }),
      ],
      [
        'root  apps-platform-all  10.0 ms',
        '├─ first  apps-platform-all  3.0 ms',
        '│  └─ inner  apps-platform-runner  1.0 ms',
        '└─ second  apps-platform-all  1.0 ms',
        '',
      ].join('\n'),
    ],
    [
      'a span whose parent has not arrived at the top, a failed span marked',
      [span('a', null, 'root', 0, 4), span('x', 'missing', 'orphan', 1, 1, { failed: true })],
      'root  apps-platform-all  4.0 ms\norphan  apps-platform-all  1.0 ms  failed\n',
    ],
  ])('draws %s', (_, spans, drawn) => {
    expect(traceTree(spans)).toBe(drawn);
  });
});

describe('spansOf', () => {
  it('reads an export: the service, hex or base64 ids, nanosecond times as text, an error status', () => {
    const spans = spansOf({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'apps-platform-runner' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from(TRACE, 'hex').toString('base64'),
                  spanId: '00f067aa0ba902b7',
                  name: 'POST /v1/invoke',
                  startTimeUnixNano: '1000000',
                  endTimeUnixNano: '3500000',
                  status: { code: 2 },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(spans).toEqual([
      {
        service: 'apps-platform-runner',
        traceId: TRACE,
        spanId: '00f067aa0ba902b7',
        parentSpanId: null,
        name: 'POST /v1/invoke',
        startNs: 1_000_000n,
        endNs: 3_500_000n,
        failed: true,
      },
    ]);
  });
});

describe('the collector double', () => {
  afterEach(cleanUpProcesses);

  it('takes what the SDK exports, answers a trace as its tree, prints a line per trace, refuses what is no export', async () => {
    const printed: string[] = [];
    const collector = await startCollectorDouble(0, (line) => printed.push(line));
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'apps-platform-all' }),
      spanProcessors: [
        new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${collector.url}/v1/traces` }) }),
      ],
    });
    try {
      const tracer = provider.getTracer('test');
      const root = tracer.startSpan('POST /workflow-runs');
      const child = tracer.startSpan('app.invoke', {}, trace.setSpan(context.active(), root));
      child.setStatus({ code: SpanStatusCode.ERROR });
      child.end();
      root.end();
      await provider.forceFlush();
      const traceId = root.spanContext().traceId;

      const answered = await fetch(`${collector.url}/traces/${traceId}`);
      expect(answered.status).toBe(200);
      expect(answered.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await answered.text()).toMatch(
        /^POST \/workflow-runs {2}apps-platform-all {2}\d+\.\d ms\n└─ app\.invoke {2}apps-platform-all {2}\d+\.\d ms {2}failed\n$/,
      );
      expect(printed).toEqual([
        `trace ${traceId} POST /workflow-runs (apps-platform-all): ${collector.url}/traces/${traceId}`,
      ]);

      const unknown = await fetch(`${collector.url}/traces/${'0'.repeat(32)}`);
      expect([unknown.status, await unknown.text()]).toEqual([
        404,
        `no spans of trace ${'0'.repeat(32)} (yet: a process exports every few seconds)\n`,
      ]);
      const notJson = await fetch(`${collector.url}/v1/traces`, { method: 'POST', body: 'hello' });
      expect([notJson.status, await notJson.text()]).toEqual([400, 'not an OTLP/HTTP JSON export\n']);
      const metrics = await fetch(`${collector.url}/v1/metrics`, {
        method: 'POST',
        body: '{"resourceMetrics":[]}',
      });
      expect(metrics.status).toBe(200);
      expect((await fetch(`${collector.url}/other`)).status).toBe(404);
    } finally {
      await provider.shutdown();
      await collector.close();
    }
  });

  it('runs as `npx app collector-double`, printing where it listens, and stops on SIGTERM', async () => {
    const command = await startServingCommand(
      APP_BIN,
      ['collector-double', '--port', '0'],
      baseEnv({}),
      'collector double',
    );
    expect(command.stdout()).toMatch(/^collector double listening on http:\/\/127\.0\.0\.1:\d+\n$/);
    signal(command.child, 'SIGTERM');
    expect((await command.exited).code).toBe(0);
  }, 60_000);
});
