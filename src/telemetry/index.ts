// Telemetry's front door (docs/telemetry.md).

export { type Attributes, SpanStatusCode } from '@opentelemetry/api';
export {
  type ApprovalKind,
  type CacheOp,
  type FallbackReason,
  type InvocationStatus,
  prometheusName,
  SERVICE_METRICS,
  type UpgradeOutcome,
  type WebhookResult,
} from './catalogue.ts';
export { observeDatabaseGauges } from './database-gauges.ts';
export { type EngineMetrics, startEngineMetrics } from './engine-metrics.ts';
export { installHttpTelemetry } from './http.ts';
export { looksLikeId } from './metric-labels.ts';
export {
  activeRun,
  countCacheOperation,
  countDecision,
  countDocumentProcessed,
  countFallback,
  countQuotaRefusal,
  countRetentionDeleted,
  countUpgrade,
  countWebhook,
  type ForwardedRecording,
  forwardMetrics,
  inFlight,
  metricsOn,
  msSince,
  recordAiRequest,
  recordAppCall,
  recordCallbackWait,
  recordForwarded,
  recordInvocation,
  recordRuleEvaluation,
  recordRuleSetEvaluation,
  recordRunDuration,
} from './metrics.ts';
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
