// What leaves the process on a span (docs/telemetry.md "Traces"). PostgreSQL's instrumentation always
// writes the statement on its spans; without OTEL_PG_STATEMENTS it is taken off before export. Messages
// (a span's status, an exception event) are cut before a query's parameters, as log lines are: Drizzle
// quotes them after `params:`. Pure.
import type { Attributes, SpanStatus } from '@opentelemetry/api';
import { withoutQueryParameters } from '../error-text.ts';

/** The SQL text's attribute under the old and the stable database conventions. */
export const STATEMENT_KEYS: readonly string[] = ['db.statement', 'db.query.text'];

/** Event attributes that quote an error's message. */
const MESSAGE_KEYS: readonly string[] = ['exception.message', 'exception.stacktrace'];

/** A span's attributes as exported: without SQL text unless statements are on. */
export function exportedAttributes(attributes: Attributes, pgStatements: boolean): Attributes {
  if (pgStatements || !STATEMENT_KEYS.some((key) => key in attributes)) return attributes;
  const { 'db.statement': _statement, 'db.query.text': _text, ...rest } = attributes;
  return rest;
}

/** A status as exported: its message cut before query parameters. */
export function exportedStatus(status: SpanStatus): SpanStatus {
  return status.message === undefined
    ? status
    : { ...status, message: withoutQueryParameters(status.message) };
}

/** An event's attributes as exported: the messages it quotes cut before query parameters. */
export function exportedEventAttributes(attributes: Attributes | undefined): Attributes | undefined {
  if (!attributes || !MESSAGE_KEYS.some((key) => typeof attributes[key] === 'string')) return attributes;
  const cut: Attributes = { ...attributes };
  for (const key of MESSAGE_KEYS) {
    const value = cut[key];
    if (typeof value === 'string') cut[key] = withoutQueryParameters(value);
  }
  return cut;
}
