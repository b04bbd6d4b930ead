// What the call routes answer, as schemas: Fastify serialises the answers with them and the OpenAPI
// description is generated from them (a test call's answer of test-call.ts, the metering report).
import { Type } from 'typebox';
import { nullable } from '../http/responses.ts';

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
  },
  { ...closed, title: 'TestCallAnswer' },
);

const Day = Type.String({ format: 'date', description: 'A UTC day, YYYY-MM-DD' });

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
          spend: Type.Optional(
            Type.Array(Type.Object({ currency: Type.String(), micros: Count }, closed), {
              description: 'Only with apps:write: one entry per currency charged that day',
            }),
          ),
        },
        closed,
      ),
    ),
  },
  { ...closed, title: 'MeteringReport' },
);

const Uuid = Type.String({ format: 'uuid' });
const REDACTED_NOTE = 'Reads "[redacted]" without runs:context.';

/** An invocation record (spec part 1 §2.10; field names: docs/calls.md "Invocation records"). */
export const InvocationRecord = Type.Object(
  {
    id: Uuid,
    installId: Type.String({ format: 'uuid', description: 'The install called (it may since be removed)' }),
    installName: Type.String({ description: 'The install’s name at the time of the call' }),
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
