// Telemetry's front door (docs/telemetry.md).
export { installHttpTelemetry } from './http.ts';
export { METRICS_PUSH_MS, samplerOf, signalUrl, startTelemetry, type Telemetry } from './sdk.ts';
export {
  currentTraceParent,
  inActivity,
  inSpan,
  inWorkflowSpan,
  type Span,
  SpanKind,
  traceHeaders,
  tracingOn,
} from './spans.ts';
export { traceUrlOf } from './trace-url.ts';
