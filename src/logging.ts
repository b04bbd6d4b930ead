// JSON log lines with the fields of docs/operations.md "Logs"; the listed keys are censored at the top level
// and one level down wherever they appear, and errors are written without the data they carry (query
// parameters, the row PostgreSQL quotes): applicants' data never reaches a log line through an error.
import os from 'node:os';
import { isSpanContextValid, TraceFlags, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { PLATFORM_VERSION } from './version.ts';

export const CENSORED_KEYS = [
  'authorization',
  'token',
  'secrets',
  'apiKey',
  'secretKey',
  'webhookSecret',
  'password',
  'submissionUrl',
  'link',
] as const;

export const REDACT_PATHS = [
  ...CENSORED_KEYS.flatMap((key) => [key, `*.${key}`]),
  'req.headers.authorization',
  'headers.authorization',
];

export interface LoggerOptions {
  service: string;
  level: string;
  env: string;
  destination?: DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: {
        service: options.service,
        version: PLATFORM_VERSION,
        env: options.env,
        pid: process.pid,
        hostname: os.hostname(),
      },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      mixin: traceFields,
      serializers: { err: errorForLog },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination,
  );
}

/**
 * `trace_id` and `span_id` of the span the line is written in (the request's completion line too, written
 * as its span ends); nothing outside a span, for a span not sampled, or when telemetry is off (no context
 * manager: no span is ever active). Read from the active context, so a line joins its trace.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !isSpanContextValid(span) || (span.traceFlags & TraceFlags.SAMPLED) === 0) return {};
  return { trace_id: span.traceId, span_id: span.spanId };
}

/**
 * Text without Drizzle's query parameters: its query errors read `Failed query: <sql>\nparams: <values>`,
 * and the values (a run's whole context, a vendor's output) run to the end of the message. Text that
 * quotes such a message (DBOS's retry lines, a stack) is cut there too: where the values end cannot be
 * told, so what follows them goes with them.
 */
export function withoutQueryParameters(text: string): string {
  const at = text.indexOf('\nparams: ');
  return at < 0 ? text : text.slice(0, at);
}

/** An error's fields that name codes and schema objects, never row data (pg's detail and where quote rows). */
const KEPT_FIELDS = ['code', 'table', 'constraint', 'column'] as const;
/** Causes and inner errors followed this deep. */
const MAX_ERROR_DEPTH = 4;

/**
 * An error as a log line writes it (the `err` serializer): its type, message and stack without query
 * parameters, its code (a SQLSTATE for PostgreSQL), the table, constraint and column it names, and its
 * cause and inner errors (AggregateError, DBOS's retries) by the same rule. Nothing else: a driver's
 * `params`, `query`, `detail` and `where` carry the data. A string is cut as withoutQueryParameters cuts.
 */
export function errorForLog(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutQueryParameters(value);
  if (typeof value !== 'object' || value === null) return value;
  const error = value as Record<string, unknown> & { stack?: unknown; cause?: unknown; errors?: unknown };
  const message = typeof error.message === 'string' ? error.message : '';
  const line: Record<string, unknown> = {
    type: value.constructor?.name ?? 'Object',
    message: withoutQueryParameters(message),
  };
  if (typeof error.stack === 'string') line.stack = stackWithout(error.stack, message);
  for (const field of KEPT_FIELDS) {
    if (typeof error[field] === 'string' || typeof error[field] === 'number') line[field] = error[field];
  }
  if (depth < MAX_ERROR_DEPTH) {
    if (error.cause !== undefined) line.cause = errorForLog(error.cause, depth + 1);
    if (Array.isArray(error.errors)) line.errors = error.errors.map((inner) => errorForLog(inner, depth + 1));
  }
  return line;
}

/** The stack with its message cut as the message is, its frames kept. */
function stackWithout(stack: string, message: string): string {
  const at = message ? stack.indexOf(message) : -1;
  if (at < 0) return withoutQueryParameters(stack);
  return `${stack.slice(0, at)}${withoutQueryParameters(message)}${stack.slice(at + message.length)}`;
}
