// Each attempt is one `app.invoke` span (docs/telemetry.md "Traces"), whoever makes it (a run's step, an
// app rule, a fallback, a test call): the app, the install's id, the action, the attempt's number, its call
// id and idempotency key, and how it came out. Never its input, output, config or secrets.
import { type Attributes, inSpan, type Span, SpanKind, SpanStatusCode } from '../telemetry/index.ts';
import type { AttemptCall, AttemptOptions, AttemptOutcome } from './attempt-contract.ts';

/** The attributes an attempt's span starts with (the call id comes once the call is made). Pure. */
export function attemptAttributes(call: AttemptCall, options: AttemptOptions): Attributes {
  return {
    'app.name': call.install.appName,
    'app.install_id': call.install.id,
    'app.action': call.action,
    'app.attempt': options.record?.attempt ?? 1,
    ...(call.idempotencyKey ? { 'app.idempotency_key': call.idempotencyKey } : {}),
    ...(options.record?.fallbackOf ? { 'app.fallback_of': options.record.fallbackOf.installId } : {}),
  };
}

/**
 * Runs the attempt inside its span; `app.outcome` is the attempt's status (success, error, timeout,
 * pending), or `refused` when a check before the call threw (admission, circuit, quotas, deadline).
 */
export function inAttemptSpan(
  call: AttemptCall,
  options: AttemptOptions,
  attempt: (span: Span) => Promise<AttemptOutcome>,
): Promise<AttemptOutcome> {
  return inSpan(
    'app.invoke',
    { kind: SpanKind.CLIENT, attributes: attemptAttributes(call, options) },
    async (span) => {
      try {
        const outcome = await attempt(span);
        span.setAttribute('app.outcome', outcome.status);
        if (outcome.error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          span.setAttribute('error.type', outcome.error.code);
        }
        return outcome;
      } catch (error) {
        span.setAttribute('app.outcome', 'refused');
        throw error;
      }
    },
  );
}
