// A collector double in the test process: a real HTTP server taking OTLP/HTTP JSON exports at /v1/traces
// and /v1/metrics (what OTEL_EXPORTER_OTLP_ENDPOINT points a process at), keeping every body as sent and
// the spans read out of them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ReceivedSpan {
  /** The exporting process's service.name. */
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's kind number: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every body received, as its raw text, by signal. */
  bodies: { traces: string[]; metrics: string[] };
  spans(): ReceivedSpan[];
  /** The metric names each service pushed. */
  metricNames(service: string): string[];
  /** The attributes of every data point a service pushed for a metric. */
  metricPoints(service: string, name: string): Record<string, unknown>[];
  /** The bucket bounds of every data point a service pushed for a histogram. */
  histogramBounds(service: string, name: string): number[][];
  close(): Promise<void>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpResource = { resource?: { attributes?: OtlpAttribute[] } };

const plainValue = (value: OtlpValue): unknown => {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  return null;
};

const attributesOf = (list: OtlpAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plainValue(a.value)]));

/** Ids as lower-case hex, whether the exporter wrote hex or base64. */
const hexId = (id: string | undefined): string | null => {
  if (!id) return null;
  if (/^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16)) return id.toLowerCase();
  return Buffer.from(id, 'base64').toString('hex');
};

const serviceOf = (resource: OtlpResource) =>
  String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');

function spansOf(body: string): ReceivedSpan[] {
  const parsed = JSON.parse(body) as {
    resourceSpans?: (OtlpResource & {
      scopeSpans?: {
        spans?: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          attributes?: OtlpAttribute[];
          status?: { code?: number; message?: string };
        }[];
      }[];
    })[];
  };
  return (parsed.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service: serviceOf(resource),
        traceId: hexId(span.traceId) ?? '',
        spanId: hexId(span.spanId) ?? '',
        parentSpanId: hexId(span.parentSpanId),
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
      })),
    ),
  );
}

function metricNamesOf(body: string, service: string): string[] {
  const parsed = JSON.parse(body) as {
    resourceMetrics?: (OtlpResource & { scopeMetrics?: { metrics?: { name: string }[] }[] })[];
  };
  return (parsed.resourceMetrics ?? [])
    .filter((resource) => serviceOf(resource) === service)
    .flatMap((resource) =>
      (resource.scopeMetrics ?? []).flatMap((s) => (s.metrics ?? []).map((m) => m.name)),
    );
}

type OtlpPoint = { attributes?: OtlpAttribute[]; explicitBounds?: number[] };
type OtlpPoints = { dataPoints?: OtlpPoint[] };

function dataPointsOf(body: string, service: string, name: string): OtlpPoint[] {
  const parsed = JSON.parse(body) as {
    resourceMetrics?: (OtlpResource & {
      scopeMetrics?: {
        metrics?: { name: string; histogram?: OtlpPoints; sum?: OtlpPoints; gauge?: OtlpPoints }[];
      }[];
    })[];
  };
  return (parsed.resourceMetrics ?? [])
    .filter((resource) => serviceOf(resource) === service)
    .flatMap((resource) => (resource.scopeMetrics ?? []).flatMap((s) => s.metrics ?? []))
    .filter((metric) => metric.name === name)
    .flatMap((metric) => (metric.histogram ?? metric.sum ?? metric.gauge)?.dataPoints ?? []);
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies = { traces: [] as string[], metrics: [] as string[] };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const signal =
        request.url === '/v1/traces' ? 'traces' : request.url === '/v1/metrics' ? 'metrics' : null;
      if (request.method !== 'POST' || signal === null) {
        response.writeHead(404).end();
        return;
      }
      bodies[signal].push(text);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans: () => bodies.traces.flatMap(spansOf),
    metricNames: (service) => [...new Set(bodies.metrics.flatMap((body) => metricNamesOf(body, service)))],
    metricPoints: (service, name) =>
      bodies.metrics.flatMap((body) =>
        dataPointsOf(body, service, name).map((p) => attributesOf(p.attributes)),
      ),
    histogramBounds: (service, name) =>
      bodies.metrics.flatMap((body) => dataPointsOf(body, service, name).map((p) => p.explicitBounds ?? [])),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
