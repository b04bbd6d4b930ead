// The OpenTelemetry SDK of one process (docs/telemetry.md): a tracer provider with the deployment's sampler
// exporting over OTLP/HTTP, a meter provider read by the Prometheus exposition on METRICS_PORT and pushed
// over OTLP every 15 s, and PostgreSQL spans. DBOS's workflow spans are not recorded and its step spans
// get the run's attributes (engine-spans.ts); what leaves is filtered (export-rules.ts). PostgreSQL's
// client is instrumented while the SDK runs (pg-instrumentation.ts). Nothing starts when telemetry is off:
// the API's no-op tracer and meter answer every call.
import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, type MetricReader, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TelemetrySettings } from '../config.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { ActivityAttributes, WithoutEngineWorkflowSpans } from './engine-spans.ts';
import { ExportedSpans } from './export.ts';
import { setTracing } from './spans.ts';

/** How often metrics are pushed to the collector when an endpoint is set. */
export const METRICS_PUSH_MS = 15_000;

export interface Telemetry {
  /** The service name this process reports (`OTEL_SERVICE_NAME`, else `apps-platform-<role>`). */
  serviceName: string;
  /** The Prometheus exposition's address, or null without METRICS_PORT. */
  metricsUrl: string | null;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

export interface TelemetryOptions {
  /** The process's default service name, used unless OTEL_SERVICE_NAME is set. */
  serviceName: string;
  /** Processors added before the exporter's (tests, the console exporter). */
  spanProcessors?: SpanProcessor[];
  /** False: traces only, no exposition and no push (the runner child forwards its metrics instead). */
  metrics?: boolean;
  /** False: no PostgreSQL client spans (the runner child has no database). */
  database?: boolean;
}

/** Starts the SDK for this process, or answers null when telemetry is off. */
export async function startTelemetry(
  settings: TelemetrySettings,
  options: TelemetryOptions,
): Promise<Telemetry | null> {
  if (!settings.enabled) return null;
  const serviceName = settings.serviceName ?? options.serviceName;
  const resource = resourceFromAttributes({
    'service.name': serviceName,
    'service.version': PLATFORM_VERSION,
  });
  const exporting = [...(options.spanProcessors ?? [])];
  if (settings.otlpEndpoint) {
    exporting.push(
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: signalUrl(settings.otlpEndpoint, 'traces') }),
      }),
    );
  }
  const tracerProvider = new TracerProvider({
    resource,
    sampler: new WithoutEngineWorkflowSpans(samplerOf(settings)),
    // The activity attributes are on a step's span before anything reads it; what is exported is the
    // span without what must not leave (export-rules.ts).
    spanProcessors: [
      new ActivityAttributes(),
      ...exporting.map((processor) => new ExportedSpans(processor, settings.pgStatements)),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  setTracing(true);

  const readers: MetricReader[] = [];
  let prometheus: PrometheusExporter | null = null;
  const metricsOut = options.metrics ?? true;
  if (metricsOut && settings.metricsPort !== null) {
    prometheus = new PrometheusExporter({
      host: '0.0.0.0',
      port: settings.metricsPort,
      preventServerStart: true,
    });
    readers.push(prometheus);
    await prometheus.startServer();
  }
  if (metricsOut && settings.otlpEndpoint) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter({ url: signalUrl(settings.otlpEndpoint, 'metrics') }),
        exportIntervalMillis: METRICS_PUSH_MS,
      }),
    );
  }
  const meterProvider = new MeterProvider({ resource, readers });
  metrics.setGlobalMeterProvider(meterProvider);
  // Loaded only now: with telemetry off, nothing of the instrumentation is.
  const pgSpans =
    (options.database ?? true) ? (await import('./pg-instrumentation.ts')).instrumentPg() : null;

  return {
    serviceName,
    metricsUrl: prometheus === null ? null : `http://0.0.0.0:${settings.metricsPort}/metrics`,
    async shutdown() {
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      pgSpans?.unpatch();
      setTracing(false);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** The sampler OTEL_TRACES_SAMPLER names, with OTEL_TRACES_SAMPLER_ARG as the ratio. Pure. */
export function samplerOf(settings: Pick<TelemetrySettings, 'sampler' | 'samplerRatio'>): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}

/** The OTLP/HTTP address of one signal under the collector's base URL (as OTEL_EXPORTER_OTLP_ENDPOINT means). */
export function signalUrl(endpoint: string, signal: 'traces' | 'metrics'): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/${signal}`;
}
