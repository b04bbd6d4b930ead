// Telemetry's front door (docs/telemetry.md).

export { type Attributes, SpanStatusCode } from '@opentelemetry/api';
export { installHttpTelemetry } from './http.ts';
export { METRICS_PUSH_MS, samplerOf, signalUrl, startTelemetry, type Telemetry } from './sdk.ts';
export {
  currentTraceParent,
  inActivity,
  inSpan,
  inTransactionSpan,
  inWorkflowSpan,
  type Span,
  SpanKind,
  traceHeaders,
  tracingOn,
} from './spans.ts';
export { traceUrlOf } from './trace-url.ts';
