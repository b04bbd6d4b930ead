// Invocation records (docs/calls.md "Invocation records"): one row per attempt
// of a workflow step, an app rule or a fallback that reached an install — its admission refusal, or what
// the runner made of it — written by the one attempt pipeline (attempt.ts), and read by
// GET /app-invocations and GET /app-invocations/:id. Records outlive their install and keep its name at
// the time. Without runs:context, input, output and the error's message read "[redacted]".
import { and, desc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import { type Page, pagedList } from '../http/paging.ts';
import { withinBounds } from '../http/time-bounds.ts';
import { holdsUnstorable, storableJson } from '../http/unstorable-text.ts';
import type { InstallRow, VersionRow } from '../installs/index.ts';
import type { Usage } from '../runner/index.ts';
import type { AttemptError, AttemptStatus } from './outcome.ts';
import { appInvocations, type InvocationStatus } from './tables.ts';

/** Where an attempt was made from: the caller's part of its record (steps, rules, fallbacks). */
export interface InvocationContext {
  workflowRunId: string | null;
  stepId: string | null;
  ruleSetKey: string | null;
  ruleKey: string | null;
  /** 1 for the first attempt of the call, 2 for its first retry, … */
  attempt: number;
  /** A fallback's attempt: the install it stood in for and the name the call gave that install. */
  fallbackOf: { installId: string; name: string } | null;
}

/** A recorded error: an admission refusal's { code, message }, or a failed attempt's result. */
export interface InvocationError {
  code: string;
  /** Absent for an admission refusal (the code says it all). */
  reason?: string;
  message: string;
  retryable?: boolean;
  retryAfterMs?: number;
}

/** What the pipeline hands the writer for one attempt. */
export interface InvocationWrite {
  /**
   * The record's id, chosen before its first try: a write tried again after the database dropped the
   * answer to its commit finds the record there and writes nothing (recordInvocation answers null).
   */
  id?: string;
  install: Pick<InstallRow, 'id' | 'tenantId' | 'name' | 'appName'>;
  /** The name the call used: the install's name, or one of its kept aliases. */
  calledAs: string;
  version: Pick<VersionRow, 'id' | 'version'>;
  action: string;
  subjectId: string | null;
  idempotencyKey: string | null;
  /** The input as sent to the module (the tenant's data; secrets only ever as placeholders). */
  input: unknown;
  context: InvocationContext;
  status: AttemptStatus;
  /** The module's output as the runner returned it (redacted): success only. */
  output?: unknown;
  error: InvocationError | null;
  durationMs: number;
  usage: Usage;
}

/** GET /app-invocations/:id and the items of GET /app-invocations (field names: docs/calls.md). */
export interface InvocationView {
  id: string;
  installId: string;
  installName: string;
  /** The name the call used: installName, or a former name the install kept as an alias. */
  calledAs: string;
  appName: string;
  versionId: string;
  version: string;
  action: string;
  workflowRunId: string | null;
  stepId: string | null;
  ruleSetKey: string | null;
  ruleKey: string | null;
  subjectId: string | null;
  idempotencyKey: string | null;
  attempt: number;
  input: unknown;
  output: unknown;
  status: InvocationStatus;
  error: InvocationError | null;
  durationMs: number;
  usage: Usage;
  fallbackOf: { installId: string; name: string } | null;
  createdAt: string;
}

export const REDACTED = '[redacted]';

/** The error a record keeps of a failed attempt: never its details (they may quote the module's output). */
export function recordedError(error: AttemptError): InvocationError {
  return {
    code: error.code,
    reason: error.reason,
    message: error.message,
    ...(error.retryable !== undefined ? { retryable: error.retryable } : {}),
    ...(error.retryAfterMs !== undefined ? { retryAfterMs: error.retryAfterMs } : {}),
  };
}

/**
 * A JSON value PostgreSQL's jsonb can hold: U+0000 and lone surrogates (which it refuses, in values and
 * names) become U+FFFD, so an attempt still gets its record and its metering. A module's answer is
 * already so (the runner reads it by this rule, http/unstorable-text.ts); an input built by the caller
 * may not be. Anything else is kept; the value given is not changed.
 */
export const storable = (value: unknown): unknown =>
  holdsUnstorable(value) ? storableJson(structuredClone(value)) : value;

/** Writes one attempt's record (in the caller's transaction, beside its metering); answers its id. */
export async function recordInvocation(db: Queryable, write: InvocationWrite): Promise<string | null> {
  const [row] = await invocationInsert(db, write).returning({ id: appInvocations.id });
  if (!row && !write.id) throw new Error('the invocation record was not written');
  return row?.id ?? null;
}

/** The record's columns. */
export function invocationValues(write: InvocationWrite) {
  const { install, version, context } = write;
  return {
    ...(write.id ? { id: write.id } : {}),
    tenantId: install.tenantId,
    installId: install.id,
    installName: install.name,
    calledAs: write.calledAs === install.name ? null : write.calledAs,
    versionId: version.id,
    appName: install.appName,
    version: version.version,
    action: write.action,
    workflowRunId: context.workflowRunId,
    stepId: context.stepId,
    ruleSetKey: context.ruleSetKey,
    ruleKey: context.ruleKey,
    subjectId: write.subjectId,
    idempotencyKey: write.idempotencyKey,
    attempt: context.attempt,
    input: storable(write.input ?? null),
    output: write.output === undefined ? null : storable(write.output),
    status: write.status,
    error: write.error ? (storable(write.error) as Record<string, unknown>) : null,
    durationMs: write.durationMs,
    usage: { ...write.usage },
    fallbackOf: context.fallbackOf,
  };
}

/** The columns invocationValues gives a record whose id is chosen: a prepared insert's placeholders. */
export const INVOCATION_COLUMNS: Record<keyof ReturnType<typeof invocationValues>, true> = {
  id: true,
  tenantId: true,
  installId: true,
  installName: true,
  calledAs: true,
  versionId: true,
  appName: true,
  version: true,
  action: true,
  workflowRunId: true,
  stepId: true,
  ruleSetKey: true,
  ruleKey: true,
  subjectId: true,
  idempotencyKey: true,
  attempt: true,
  input: true,
  output: true,
  status: true,
  error: true,
  durationMs: true,
  usage: true,
  fallbackOf: true,
};

/** The record's insert, not yet sent: a record given its id is written once (a try again writes nothing). */
export function invocationInsert(db: Queryable, write: InvocationWrite) {
  return db
    .insert(appInvocations)
    .values(invocationValues(write))
    .onConflictDoNothing({ target: appInvocations.id });
}

// ---- reading ----------------------------------------------------------------------------------------

export interface InvocationQuery {
  tenantId: string;
  /**
   * A name calls used or were recorded under: calls made through it — the install's own name
   * or a kept alias — and calls of the install that held it then, earlier installs of that name too.
   */
  install?: string;
  installId?: string;
  workflowRunId?: string;
  status?: InvocationStatus[];
  /** Inclusive lower bound on createdAt. */
  from?: Date;
  /** Exclusive upper bound on createdAt. */
  to?: Date;
  limit: number;
  offset: number;
}

type InvocationRow = typeof appInvocations.$inferSelect;

/** The record as the API answers it; without runs:context its input, output and error text redacted. */
export function invocationView(row: InvocationRow, withContext: boolean): InvocationView {
  const hide = (value: unknown) => (withContext || value === null ? value : REDACTED);
  const error = row.error as InvocationError | null;
  return {
    id: row.id,
    installId: row.installId,
    installName: row.installName,
    calledAs: row.calledAs ?? row.installName,
    appName: row.appName,
    versionId: row.versionId,
    version: row.version,
    action: row.action,
    workflowRunId: row.workflowRunId,
    stepId: row.stepId,
    ruleSetKey: row.ruleSetKey,
    ruleKey: row.ruleKey,
    subjectId: row.subjectId,
    idempotencyKey: row.idempotencyKey,
    attempt: row.attempt,
    input: hide(row.input),
    output: hide(row.output),
    status: row.status,
    error: error && !withContext ? { ...error, message: REDACTED } : error,
    durationMs: row.durationMs,
    usage: row.usage as unknown as Usage,
    fallbackOf: row.fallbackOf,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The tenant's records matching the query, newest first. */
export async function listInvocations(
  db: Queryable,
  query: InvocationQuery,
  withContext: boolean,
): Promise<Page<InvocationView>> {
  const conditions: SQL[] = [eq(appInvocations.tenantId, query.tenantId)];
  if (query.install !== undefined) {
    const named = or(
      eq(appInvocations.installName, query.install),
      eq(appInvocations.calledAs, query.install),
    );
    if (named) conditions.push(named);
  }
  if (query.installId !== undefined) conditions.push(eq(appInvocations.installId, query.installId));
  if (query.workflowRunId !== undefined)
    conditions.push(eq(appInvocations.workflowRunId, query.workflowRunId));
  if (query.status && query.status.length > 0) conditions.push(inArray(appInvocations.status, query.status));
  conditions.push(...withinBounds(appInvocations.createdAt, query));
  return pagedList(
    db,
    {
      from: appInvocations,
      where: and(...conditions),
      orderBy: [desc(appInvocations.createdAt), desc(appInvocations.id)],
      limit: query.limit,
      offset: query.offset,
    },
    (row) => invocationView(row, withContext),
  );
}

/** One record of the tenant; another tenant's, or none, is 404 not_found. */
export async function getInvocation(
  db: Queryable,
  tenantId: string,
  id: string,
  withContext: boolean,
): Promise<InvocationView> {
  const [row] = await db
    .select()
    .from(appInvocations)
    .where(and(eq(appInvocations.tenantId, tenantId), eq(appInvocations.id, id)));
  if (!row) throw notFound('no invocation record of that id');
  return invocationView(row, withContext);
}
