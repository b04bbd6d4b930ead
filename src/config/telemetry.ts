// Telemetry settings (docs/telemetry.md): off unless OTEL_EXPORTER_OTLP_ENDPOINT or METRICS_PORT is set;
// OTEL_SDK_DISABLED=true keeps it off whatever else is set.
import { HTTP_SCHEMES, type Reader } from './reader.ts';

export const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TelemetrySettings {
  /** True when an endpoint or a metrics port is set and OTEL_SDK_DISABLED is not true. */
  enabled: boolean;
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (OTLP over HTTP; `/v1/traces`, `/v1/metrics`). */
  otlpEndpoint: string | null;
  /** METRICS_PORT: text exposition on /metrics at 0.0.0.0:<port>; the worker's engine metrics on port + 1. */
  metricsPort: number | null;
  /** OTEL_SERVICE_NAME, or null: each process names itself after its role (`apps-platform-api`, …). */
  serviceName: string | null;
  sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the ratio samplers, 0 to 1 (default 1). */
  samplerRatio: number;
  /** OTEL_PG_STATEMENTS: SQL text on database spans (default false). */
  pgStatements: boolean;
  /** TRACE_URL_TEMPLATE: a link to a trace, `{traceId}` replaced; null when unset. */
  traceUrlTemplate: string | null;
}

export function readTelemetry(read: Reader): TelemetrySettings {
  const otlpEndpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT', HTTP_SCHEMES);
  // METRICS_PORT + 1 serves the worker's engine metrics, so the port itself stops one short of the top.
  const metricsPort = read.text('METRICS_PORT') === null ? null : read.int('METRICS_PORT', 0, 1, 65534);
  const disabled = read.oneOf('OTEL_SDK_DISABLED', ['true', 'false'], 'false') === 'true';
  const template = read.text('TRACE_URL_TEMPLATE');
  if (template !== null && !template.includes('{traceId}')) {
    read.problems.push('TRACE_URL_TEMPLATE: expected a link containing {traceId}');
  }
  return {
    enabled: !disabled && (otlpEndpoint !== null || metricsPort !== null),
    otlpEndpoint,
    metricsPort,
    serviceName: read.text('OTEL_SERVICE_NAME'),
    sampler: read.oneOf('OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on'),
    samplerRatio: ratio(read),
    pgStatements: read.oneOf('OTEL_PG_STATEMENTS', ['true', 'false'], 'false') === 'true',
    traceUrlTemplate: template,
  };
}

function ratio(read: Reader): number {
  const raw = read.text('OTEL_TRACES_SAMPLER_ARG');
  if (raw === null) return 1;
  const value = /^(0|1|0?\.\d+|1\.0*)$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= 1)) {
    read.problems.push(`OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got "${raw}"`);
    return 1;
  }
  return value;
}
