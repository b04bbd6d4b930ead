// What the call routes answer, as schemas: Fastify serialises the answers with them and the OpenAPI
// description is generated from them (a test call's answer of test-call.ts, the metering reports).
import { Type } from 'typebox';
import { dateTime, nullable } from '../http/responses.ts';
import { BUDGET_METRICS, BUDGET_PERIODS, QUOTA_METRICS } from './quotas.ts';

const closed = { additionalProperties: false } as const;
const Count = Type.Integer({ minimum: 0 });

const Usage = Type.Object(
  {
    httpRequests: Count,
    reusedConnections: Count,
    documentReads: Count,
    logLines: Count,
    ai: Type.Optional(Type.Object({ requests: Count, inputTokens: Count, outputTokens: Count }, closed)),
  },
  { ...closed, description: 'What the call used' },
);

const CallError = Type.Object(
  {
    code: Type.Union([Type.Literal('app_call_failed'), Type.Literal('validation_error')]),
    reason: Type.String({
      description:
        'error (the module answered an error), contract, output, or the runner’s failure code (timeout, trapped, …)',
    }),
    message: Type.String(),
    retryable: Type.Optional(Type.Boolean()),
    retryAfterMs: Type.Optional(Type.Integer({ minimum: 0 })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  closed,
);

/** POST /app-installs/:install/test: the attempt's result with its duration, usage and the module's log lines. */
export const TestCallAnswer = Type.Object(
  {
    status: Type.Union([
      Type.Literal('success'),
      Type.Literal('pending'),
      Type.Literal('error'),
      Type.Literal('timeout'),
    ]),
    output: Type.Optional(Type.Unknown({ description: 'success: the action’s output' })),
    externalId: Type.Optional(Type.String({ description: 'pending: the vendor’s id the webhook names' })),
    callbackTimeoutSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    error: Type.Optional(CallError),
    durationMs: Count,
    usage: Usage,
    logs: Type.Array(
      Type.Object(
        {
          level: Type.Union([
            Type.Literal('debug'),
            Type.Literal('info'),
            Type.Literal('warn'),
            Type.Literal('error'),
          ]),
          message: Type.String(),
        },
        closed,
      ),
    ),
    redacted: Type.Array(
      Type.Object(
        {
          placeholder: Type.String({ description: '[secret:NAME], [auth:TYPE] or [cache:NAME]' }),
          kind: Type.Union([Type.Literal('secret'), Type.Literal('auth'), Type.Literal('cache')], {
            description:
              'A stored secret, a credential derived from one (bearer, basic, digest), or a cached value',
          }),
          name: Type.String({ description: 'The secret’s or cached value’s name, or the credential’s type' }),
          in: Type.Array(
            Type.Union([
              Type.Literal('output'),
              Type.Literal('externalId'),
              Type.Literal('error'),
              Type.Literal('logs'),
            ]),
            { description: 'The parts of the answer it stands in' },
          ),
        },
        closed,
      ),
      {
        description:
          'What was redacted: each placeholder the answer and its log lines hold, once, by placeholder. Read from the text, so a module that writes such text itself shows here too; values never appear.',
      },
    ),
  },
  { ...closed, title: 'TestCallAnswer' },
);

const Day = Type.String({ format: 'date', description: 'A UTC day, YYYY-MM-DD' });
const Spend = Type.Array(Type.Object({ currency: Type.String(), micros: Count }, closed), {
  description: 'Only with apps:write: micros per currency charged, by currency',
});

/** Counted apart from calls, and never limited (docs/limits-and-metering.md "Counted apart"). */
const apart = {
  webhooks: Type.Integer({
    minimum: 0,
    description:
      'Vendor webhook deliveries the module ran on, or may have (POST /webhooks/app-installs/{installId}), under the session’s action; not calls, never limited',
  }),
  handoffs: Type.Integer({
    minimum: 0,
    description:
      'Hand-offs the module ran on, or may have (GET /collection-submissions/{id}/handoff), under the session’s action; not calls, never limited',
  }),
};

/** GET /app-installs/metering: the range read and its rows, newest day first. */
export const MeteringReport = Type.Object(
  {
    from: Day,
    to: Day,
    items: Type.Array(
      Type.Object(
        {
          installId: Type.String({ format: 'uuid' }),
          installName: Type.String(),
          appName: Type.String(),
          action: Type.String(),
          day: Day,
          calls: Count,
          httpRequests: Count,
          spend: Type.Optional(Spend),
          ...apart,
        },
        closed,
      ),
    ),
  },
  { ...closed, title: 'MeteringReport' },
);

/** A UTC month, YYYY-MM: the month report's query and answer. */
export const Month = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
  description: 'A UTC month, YYYY-MM',
});

/** What a month, a day or an install used (spend only with apps:write). */
const used = { calls: Count, httpRequests: Count, spend: Type.Optional(Spend), ...apart };

/** A quota or budget against its current period; metrics name what it may count. */
const standing = (metrics: readonly string[], description: string) =>
  Type.Object(
    {
      metric: Type.Enum([...metrics]),
      period: Type.Enum([...BUDGET_PERIODS]),
      max: Count,
      used: Count,
      periodStart: dateTime('00:00 UTC of the current day, or of the current month’s first day'),
      resetsAt: dateTime('The next period’s start'),
      reached: Type.Boolean({
        description:
          'It refuses calls now, by the quota check’s rule (calls: the next would be one too many; HTTP requests: used up; spend: the install’s dearest action would pass it)',
      }),
    },
    { ...closed, description },
  );

/** GET /apps/metering: a month's use, the operator's quotas and the installs' budgets (docs/limits-and-metering.md). */
export const MonthMeteringReport = Type.Object(
  {
    month: Month,
    total: Type.Object(used, closed),
    days: Type.Array(Type.Object({ day: Day, ...used }, closed), {
      description: 'The month’s days with use, oldest first',
    }),
    installs: Type.Array(
      Type.Object(
        {
          installId: Type.String({ format: 'uuid' }),
          installName: Type.String({ description: 'Its current name; a removed install’s last one' }),
          appName: Type.String(),
          removed: Type.Boolean(),
          ...used,
          currency: Type.Optional(
            nullable(Type.String(), { description: 'Only with apps:write: the limits record’s currency' }),
          ),
          budgets: Type.Array(
            standing(BUDGET_METRICS, 'A budget of the install; spend budgets only with apps:write'),
          ),
        },
        closed,
      ),
      {
        description: 'Every install the tenant has, then removed ones metered in the month; by name',
      },
    ),
    quotas: Type.Array(standing(QUOTA_METRICS, 'An operator’s quota of the tenant, over all installs')),
  },
  { ...closed, title: 'MonthMeteringReport' },
);

const Uuid = Type.String({ format: 'uuid' });
const REDACTED_NOTE = 'Reads "[redacted]" without runs:context.';

/** An invocation record (field names: docs/calls.md "Invocation records"). */
export const InvocationRecord = Type.Object(
  {
    id: Uuid,
    installId: Type.String({ format: 'uuid', description: 'The install called (it may since be removed)' }),
    installName: Type.String({ description: 'The install’s name at the time of the call' }),
    calledAs: Type.String({
      description: 'The name the call used: installName, or a former name the install kept as an alias',
    }),
    appName: Type.String(),
    versionId: Uuid,
    version: Type.String({ description: 'The version the attempt ran on (semver)' }),
    action: Type.String(),
    workflowRunId: nullable(Uuid),
    stepId: nullable(Type.String()),
    ruleSetKey: nullable(Type.String({ description: 'An app rule’s call: its rule set' })),
    ruleKey: nullable(Type.String({ description: 'An app rule’s call: its rule' })),
    subjectId: nullable(Type.String()),
    idempotencyKey: nullable(Type.String()),
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt, 2 for the first retry, …' }),
    input: Type.Unknown({ description: `The input as sent to the module. ${REDACTED_NOTE}` }),
    output: Type.Unknown({
      description: `success: the output, secrets and cached values redacted; otherwise null. ${REDACTED_NOTE}`,
    }),
    status: Type.Union([
      Type.Literal('success'),
      Type.Literal('pending'),
      Type.Literal('error'),
      Type.Literal('timeout'),
    ]),
    error: nullable(
      Type.Object(
        {
          code: Type.String({
            description:
              'app_call_failed or validation_error (output); an admission refusal’s code (install_not_configured, app_blocked, validation_error, …)',
          }),
          reason: Type.Optional(
            Type.String({ description: 'As in a test call’s error; absent for an admission refusal' }),
          ),
          message: Type.String({ description: REDACTED_NOTE }),
          retryable: Type.Optional(Type.Boolean()),
          retryAfterMs: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        closed,
      ),
    ),
    durationMs: Type.Integer({ minimum: 0, description: '0 for an admission refusal' }),
    usage: Usage,
    fallbackOf: nullable(
      Type.Object(
        {
          installId: Uuid,
          name: Type.String({ description: 'The name the call gave the install it stood in for' }),
        },
        { ...closed, description: 'A fallback’s attempt: the install it stood in for' },
      ),
    ),
    createdAt: Type.String({ format: 'date-time', description: 'When the record was written' }),
  },
  { ...closed, title: 'InvocationRecord' },
);
