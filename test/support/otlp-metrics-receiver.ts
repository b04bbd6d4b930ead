// A collector's OTLP/HTTP endpoint for tests: keeps every metrics export (JSON, as the platform's
// exporter sends it) and answers every other signal with 200. The outside world's double: the platform
// pushes to it as it would to a real collector.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exported metric, flattened: its name and each data point's attributes. */
export interface ReceivedMetric {
  name: string;
  points: Record<string, unknown>[];
}

export interface OtlpMetricsReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every metric of every export so far. */
  metrics(): ReceivedMetric[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
type Point = { attributes?: { key: string; value: AnyValue }[] };
type Metric = { name: string } & Partial<
  Record<'sum' | 'gauge' | 'histogram' | 'exponentialHistogram', { dataPoints?: Point[] }>
>;
interface ExportBody {
  resourceMetrics?: { scopeMetrics?: { metrics?: Metric[] }[] }[];
}

const attributeValue = (v: AnyValue): unknown => v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue;

function flatten(body: ExportBody): ReceivedMetric[] {
  const metrics = (body.resourceMetrics ?? []).flatMap((r) =>
    (r.scopeMetrics ?? []).flatMap((s) => s.metrics ?? []),
  );
  return metrics.map((m) => {
    const data = m.sum ?? m.gauge ?? m.histogram ?? m.exponentialHistogram ?? {};
    const points = (data.dataPoints ?? []).map((p) =>
      Object.fromEntries((p.attributes ?? []).map((a) => [a.key, attributeValue(a.value)])),
    );
    return { name: m.name, points };
  });
}

export async function startOtlpMetricsReceiver(): Promise<OtlpMetricsReceiver> {
  const received: ReceivedMetric[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/metrics') {
        const text = Buffer.concat(chunks).toString('utf8');
        received.push(...flatten(JSON.parse(text) as ExportBody));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    metrics: () => [...received],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
