// Telemetry on and off within one benchmark process (docs/telemetry.md "Cost"): on, the OpenTelemetry
// SDK as a platform process starts it (always_on sampler, traces and metrics pushed over OTLP to a local
// receiver, the Prometheus exposition on a port), the worker's database gauges and engine metrics on
// port + 1, and both ports scraped every SCRAPE_MS; off, all of it stopped. The receiver runs in this
// process, so what it costs to take the exports counts against the telemetry-on row, as a collector on
// the same machine would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { Pool } from 'pg';
import {
  observeDatabaseGauges,
  startEngineMetrics,
  startTelemetry,
  type Telemetry,
} from '../src/telemetry/index.ts';
import { ENGINE_SCHEMA, TASK_QUEUES } from '../src/worker/index.ts';

/** How often the bench scrapes /metrics and the engine's metrics while telemetry is on (Prometheus: 15 s). */
const SCRAPE_MS = 1000;

export interface TelemetryCounts {
  spans: number;
  metricExports: number;
  scrapes: number;
  scrapedBytes: number;
}

export interface TelemetrySwitch {
  on(): Promise<void>;
  off(): Promise<void>;
  counts(): TelemetryCounts;
  close(): Promise<void>;
}

interface SpanBody {
  resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[];
}

/** A collector's OTLP/HTTP endpoint that counts what it receives. */
async function startReceiver(counts: TelemetryCounts) {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as SpanBody;
        for (const r of body.resourceSpans ?? [])
          for (const s of r.scopeSpans ?? []) counts.spans += s.spans?.length ?? 0;
      } else if (request.url === '/v1/metrics') counts.metricExports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function telemetrySwitch(pool: Pool, metricsPort: number): Promise<TelemetrySwitch> {
  const counts: TelemetryCounts = { spans: 0, metricExports: 0, scrapes: 0, scrapedBytes: 0 };
  const receiver = await startReceiver(counts);
  let running: { stop(): Promise<void> } | null = null;

  const scrape = async (port: number) => {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    counts.scrapes += 1;
    counts.scrapedBytes += text.length;
  };

  const on = async () => {
    if (running) return;
    const telemetry = (await startTelemetry(
      {
        enabled: true,
        otlpEndpoint: receiver.url,
        metricsPort,
        serviceName: null,
        sampler: 'always_on',
        samplerRatio: 1,
        pgStatements: false,
        traceUrlTemplate: null,
      },
      { serviceName: 'apps-platform-bench' },
    )) as Telemetry;
    const gauges = observeDatabaseGauges(pool, () => {});
    const engine = await startEngineMetrics({
      port: metricsPort + 1,
      pool,
      schema: ENGINE_SCHEMA,
      queues: TASK_QUEUES,
      serviceName: 'apps-platform-bench',
      onError: () => {},
    });
    const timer = setInterval(() => {
      void Promise.all([scrape(metricsPort), scrape(metricsPort + 1)]).catch(() => {});
    }, SCRAPE_MS);
    running = {
      async stop() {
        clearInterval(timer);
        gauges.stop();
        await engine.stop();
        await telemetry.shutdown();
      },
    };
  };

  const off = async () => {
    await running?.stop();
    running = null;
  };

  return {
    on,
    off,
    counts: () => ({ ...counts }),
    async close() {
      await off();
      await receiver.close();
    },
  };
}

/** The goal: telemetry on costs under 5 % of the runs a second telemetry off completes. */
export const MAX_TELEMETRY_LOSS = 0.05;

/** The goal's line, from the runs row with telemetry off and the same row with it on. */
export function telemetryGoalLine(
  off: { perSecond: number; p50: number; ownMs: number; pgMs: number },
  on: { perSecond: number; p50: number; ownMs: number; pgMs: number },
  counts: TelemetryCounts,
): string {
  const loss = 1 - on.perSecond / off.perSecond;
  return (
    `\ngoal: telemetry on (always_on, OTLP to a local receiver, /metrics and port + 1 scraped every ${SCRAPE_MS} ms) ` +
    `loses under ${MAX_TELEMETRY_LOSS * 100} % of the runs a second: ${loss < MAX_TELEMETRY_LOSS ? 'met' : 'MISSED'} ` +
    `(${on.perSecond.toFixed(0)} vs ${off.perSecond.toFixed(0)} runs/s, ${(loss * 100).toFixed(1)} % lost; ` +
    `p50 ${on.p50.toFixed(1)} vs ${off.p50.toFixed(1)} ms; CPU ${(on.ownMs + on.pgMs).toFixed(2)} vs ` +
    `${(off.ownMs + off.pgMs).toFixed(2)} ms a run; ${counts.spans} spans and ${counts.metricExports} metric pushes received, ` +
    `${counts.scrapes} scrapes of ${(counts.scrapedBytes / Math.max(1, counts.scrapes) / 1024).toFixed(1)} KiB on average)`
  );
}

/** A free port whose next port is free too (the engine's metrics listen on port + 1). */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (port !== null && port < 65535 && (await listenOnce(port + 1)) !== null) return port;
  }
}

function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '0.0.0.0', () => {
      const bound = (server.address() as AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}
