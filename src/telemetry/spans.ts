// Our own spans (docs/telemetry.md "Traces"): a piece of work run inside a span that ends with it, the
// W3C trace context carried on a run, and the activity attributes DBOS's step spans are given.
import {
  type Attributes,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { TRACER_NAME } from './names.ts';

export { SpanKind };
export type { Span };

let tracing = false;

/** Set by startTelemetry: whether this process records spans (telemetry on). */
export function setTracing(on: boolean): void {
  tracing = on;
}

/** Whether this process records spans: work done only for them (reading a run's trace context) is skipped when not. */
export const tracingOn = (): boolean => tracing;

/**
 * Runs `work` inside a new span, child of the active one (or of `parent`), and ends it when the work
 * settles; a throw marks it failed with the error's code (never its message, which may quote data).
 */
export async function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: ReturnType<typeof context.active> },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(TRACER_NAME)
    .startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes ?? {} },
      parent,
    );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', errorTypeOf(error));
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Our transaction helper's span (Database's `db.transaction`): the queries inside are its children. Only
 * inside a trace, as PostgreSQL's query spans: background loops stay untraced.
 */
export function inTransactionSpan<T>(work: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()?.isRecording()) return work();
  const attributes = { 'db.system.name': 'postgresql' };
  return inSpan('db.transaction', { kind: SpanKind.CLIENT, attributes }, work);
}

/** An error's code (ApiError, RunError, SQLSTATE…) or its class name: what may name it on a span. */
export function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.constructor.name : 'unknown';
}

/** The W3C `traceparent` of the active span, stored on what continues the trace elsewhere; null outside one. */
export function currentTraceParent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The headers that carry the active trace to another of our processes (the runner): `traceparent`. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { traceparent: carrier.traceparent } : {};
}

const ACTIVITY = createContextKey('apps-platform.activity');

/**
 * Runs `work` (a run's workflow in the worker) inside a span whose parent is the stored `traceParent`
 * (the request that started the run), or a new trace without one; its attributes are also the activity
 * attributes every DBOS step inside it gets (ActivityAttributes).
 */
export function inWorkflowSpan<T>(
  name: string,
  traceParent: string | null,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  const parent = traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : ROOT_CONTEXT;
  return inSpan(name, { parent: parent.setValue(ACTIVITY, attributes), attributes }, () => work());
}

/** Runs `work` with more activity attributes (a run's step id) for the DBOS steps it starts. */
export function inActivity<T>(attributes: Attributes, work: () => Promise<T>): Promise<T> {
  const active = context.active();
  const current = (active.getValue(ACTIVITY) as Attributes | undefined) ?? {};
  return context.with(active.setValue(ACTIVITY, { ...current, ...attributes }), work);
}

/** The activity attributes in force in `ctx`, if any. */
export const activityOf = (ctx: ReturnType<typeof context.active>): Attributes | undefined =>
  ctx.getValue(ACTIVITY) as Attributes | undefined;
