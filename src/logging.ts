// JSON log lines with the fields of docs/operations.md "Logs"; the listed keys are censored at the top level
// and one level down wherever they appear, and errors are written without the data they carry (query
// parameters, the row PostgreSQL quotes): applicants' data never reaches a log line through an error.
// On a terminal the same lines are shown readable, one short line each (LOG_FORMAT: pretty or json).
import { createRequire } from 'node:module';
import os from 'node:os';
import { isSpanContextValid, TraceFlags, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import { withoutQueryParameters } from './error-text.ts';
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

export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

/** LOG_FORMAT as set, else readable lines on a terminal and JSON anywhere else (a file, a pipe). Pure. */
export function logFormatOf(setting: string | null | undefined, isTerminal: boolean): LogFormat {
  if (setting === 'pretty' || setting === 'json') return setting;
  return isTerminal ? 'pretty' : 'json';
}

export interface LoggerOptions {
  service: string;
  level: string;
  env: string;
  /** Where lines go: standard output by default. */
  destination?: DestinationStream;
  /**
   * Absent: JSON into a given destination; on standard output, LOG_FORMAT (checked by loadConfig), else
   * readable on a terminal and JSON elsewhere.
   */
  format?: LogFormat;
}

export function createLogger(options: LoggerOptions): Logger {
  const format =
    options.format ??
    (options.destination
      ? 'json'
      : logFormatOf(process.env.LOG_FORMAT?.trim(), process.stdout.isTTY === true));
  const destination = format === 'pretty' ? readableLines(options.destination) : options.destination;
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
    destination,
  );
}

/** Shown in a readable line's text, or left out of it: the fields every line of a process repeats. */
const NOT_SHOWN = ['pid', 'hostname', 'service', 'version', 'env', 'role'];
const REQUEST_FIELDS = ['method', 'route', 'path', 'statusCode', 'responseTimeMs'];

/**
 * A line's text as the readable format shows it: its role, then for a request's line
 * `GET /subjects/:subjectId/documents 200 12 ms`, for any other its message. Pure.
 */
export function readableMessage(line: Record<string, unknown>, messageKey = 'msg'): string {
  const role = typeof line.role === 'string' ? `${line.role}: ` : '';
  if (typeof line.method === 'string' && typeof line.statusCode === 'number') {
    const where = line.route ?? line.path;
    return `${role}${line.method} ${where} ${line.statusCode} ${line.responseTimeMs} ms`;
  }
  return `${role}${String(line[messageKey] ?? '')}`;
}

/**
 * pino-pretty as the logger's stream: one line each (time, level, text, the other fields as JSON), written
 * synchronously so that a process ending at once (a signal) loses none. Loaded only when used.
 */
function readableLines(destination: DestinationStream | undefined): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: PrettyOptions,
  ) => DestinationStream;
  return pretty({
    destination: destination ?? 1,
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: [...NOT_SHOWN, ...REQUEST_FIELDS].join(','),
    messageFormat: (log, messageKey) => readableMessage(log, messageKey),
  });
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
