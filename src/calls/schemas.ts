// What the call routes answer, as schemas: Fastify serialises the answers with them and the OpenAPI
// description is generated from them (a test call's answer of test-call.ts, the metering report).
import { Type } from 'typebox';

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
