// `app collector-double`: an OpenTelemetry collector double to point OTEL_EXPORTER_OTLP_ENDPOINT at when
// trying the platform's telemetry on a machine without a tracing backend (Jaeger needs Docker). It takes
// OTLP/HTTP JSON exports, as the platform sends them, at /v1/traces and /v1/metrics; keeps the most recent
// spans in memory; prints a line for each trace as its first span without a parent arrives; and answers
// GET /traces/<traceId> with that trace's span tree as text, so that with
// TRACE_URL_TEMPLATE='http://127.0.0.1:4318/traces/{traceId}' a run's `traceUrl` shows its trace.
// Metrics are taken and dropped (the platform's /metrics on METRICS_PORT shows them). Runs until interrupted.

import { gunzipSync } from 'node:zlib';
import type { Command } from 'commander';
import {
  type IncomingRequest,
  type OutgoingResponse,
  startLocalServer,
} from '../../packages/app-testing/src/local-server.ts';
import { APP_COMMANDS } from './commands.ts';
import { portOf } from './vendor-double.ts';

/** Spans kept, the oldest dropped first: enough for a walkthrough's traces, bounded for a long session. */
export const KEPT_SPANS = 20_000;
/** A larger export is refused (413): the platform's batches are far smaller. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const TRACE_ROUTE = /^\/traces\/([0-9a-f]{32})$/;

export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** Nanoseconds since the epoch, as OTLP counts them. */
  startNs: bigint;
  endNs: bigint;
  /** OTLP's status code 2: the span failed. */
  failed: boolean;
}

type OtlpAttribute = { key: string; value?: { stringValue?: string } };
type OtlpSpan = {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  status?: { code?: number };
};
type OtlpTraces = {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
};

/** An id as lower-case hex, whether the exporter wrote hex (the JSON encoding) or base64. Pure. */
export function hexId(id: string | undefined): string | null {
  if (!id) return null;
  if (/^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
}

/** The spans of one OTLP/HTTP JSON trace export (`ExportTraceServiceRequest`). Pure. */
export function spansOf(body: OtlpTraces): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resource) => {
    const named = resource.resource?.attributes?.find((a) => a.key === 'service.name');
    const service = named?.value?.stringValue ?? 'unknown';
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hexId(span.traceId) ?? '',
        spanId: hexId(span.spanId) ?? '',
        parentSpanId: hexId(span.parentSpanId),
        name: span.name ?? '',
        startNs: BigInt(span.startTimeUnixNano ?? 0),
        endNs: BigInt(span.endTimeUnixNano ?? 0),
        failed: span.status?.code === 2,
      })),
    );
  });
}

/**
 * One trace's spans as a tree, one line a span: its name, service and duration, children under their
 * parent in the order they started (`├─`, `└─`); a span whose parent has not arrived stands at the top.
 * Pure.
 */
export function traceTree(spans: readonly CollectedSpan[]): string {
  const ids = new Set(spans.map((s) => s.spanId));
  const byStart = [...spans].sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const childrenOf = (parent: string | null) =>
    byStart.filter((s) =>
      parent === null ? !s.parentSpanId || !ids.has(s.parentSpanId) : s.parentSpanId === parent,
    );
  const lines: string[] = [];
  const walk = (span: CollectedSpan, lead: string, branch: string) => {
    const ms = Number(span.endNs - span.startNs) / 1e6;
    const failed = span.failed ? '  failed' : '';
    lines.push(`${lead}${branch}${span.name}  ${span.service}  ${ms.toFixed(1)} ms${failed}`);
    const children = childrenOf(span.spanId);
    const under = lead + (branch === '├─ ' ? '│  ' : branch === '└─ ' ? '   ' : '');
    children.forEach((child, i) => {
      walk(child, under, i === children.length - 1 ? '└─ ' : '├─ ');
    });
  };
  for (const root of childrenOf(null)) walk(root, '', '');
  return `${lines.join('\n')}\n`;
}

export interface CollectorDouble {
  url: string;
  host: string;
  close(): Promise<void>;
}

/** The body as JSON, unzipped when the exporter compressed it; null when it is not JSON. */
function exportOf(request: IncomingRequest): unknown {
  const raw = request.headers['content-encoding'] === 'gzip' ? gunzipSync(request.body) : request.body;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return null;
  }
}

export async function startCollectorDouble(
  port: number,
  print: (line: string) => void = () => {},
): Promise<CollectorDouble> {
  const kept: CollectedSpan[] = [];
  const announced = new Set<string>();
  let url = '';
  const text = (status: number, body: string): OutgoingResponse => ({
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body,
  });
  const take = (request: IncomingRequest): OutgoingResponse => {
    if (request.body.length > MAX_BODY_BYTES) return text(413, 'export too large\n');
    const body = exportOf(request);
    if (body === null || typeof body !== 'object') return text(400, 'not an OTLP/HTTP JSON export\n');
    if (request.path === '/v1/traces') {
      for (const span of spansOf(body as OtlpTraces)) {
        kept.push(span);
        if (span.parentSpanId === null && !announced.has(span.traceId)) {
          announced.add(span.traceId);
          print(`trace ${span.traceId} ${span.name} (${span.service}): ${url}/traces/${span.traceId}`);
        }
      }
      const over = kept.length - KEPT_SPANS;
      if (over > 0) kept.splice(0, over);
    }
    return { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
  };
  const server = await startLocalServer((request) => {
    if (request.method === 'POST' && (request.path === '/v1/traces' || request.path === '/v1/metrics'))
      return take(request);
    const traceId = request.method === 'GET' ? TRACE_ROUTE.exec(request.path)?.[1] : undefined;
    if (traceId === undefined) return text(404, 'POST /v1/traces, POST /v1/metrics, GET /traces/<traceId>\n');
    const spans = kept.filter((s) => s.traceId === traceId);
    if (spans.length === 0)
      return text(404, `no spans of trace ${traceId} (yet: a process exports every few seconds)\n`);
    return text(200, traceTree(spans));
  }, port);
  url = server.url;
  return { url: server.url, host: server.host, close: () => server.close() };
}

export function registerCollectorDouble(program: Command): void {
  program
    .command('collector-double')
    .summary(APP_COMMANDS['collector-double'])
    .description(
      'run an OpenTelemetry collector double on 127.0.0.1 (until Ctrl-C): it takes OTLP/HTTP JSON at ' +
        '/v1/traces and /v1/metrics (OTEL_EXPORTER_OTLP_ENDPOINT=<its address>), prints a line per trace, ' +
        'and answers GET /traces/<traceId> with the trace as a tree of spans ' +
        "(TRACE_URL_TEMPLATE='<its address>/traces/{traceId}' makes runs link there)",
    )
    .option('--port <port>', 'port to listen on (0: a free one)', '4318')
    .action(async (flags: { port: string }) => {
      const port = portOf(flags.port);
      const print = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      const collector = await startCollectorDouble(port, print);
      // Handlers before the line: whoever waits for it may signal at once.
      const stop = () => void collector.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.stdout.write(`collector double listening on ${collector.url}\n`);
    });
}
