// A run's link to its trace for `ops:read` holders (TRACE_URL_TEMPLATE; docs/telemetry.md "Finding a
// run's trace"). Pure.

/** The W3C traceparent: version, trace id, parent span id, flags (two hex digits each end). */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;

/**
 * The template with `{traceId}` replaced by the trace id of `traceParent`; null without a template, without
 * a trace context, or when the trace was not sampled (no backend holds it).
 */
export function traceUrlOf(template: string | null, traceParent: string | null): string | null {
  if (template === null || traceParent === null) return null;
  const match = TRACEPARENT.exec(traceParent);
  if (!match) return null;
  const [, traceId, flags] = match as unknown as [string, string, string];
  // The sampled flag is the flags' lowest bit.
  if ((Number.parseInt(flags, 16) & 1) === 0 || /^0+$/.test(traceId)) return null;
  return template.replaceAll('{traceId}', traceId);
}
