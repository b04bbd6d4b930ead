// The answers each export may give (docs/module-contract.md), as JSON Schema: checked on the sandbox
// thread that ran the call (answer.ts), by validators generated from these schemas (answer-validators.ts).
export type ExportName = 'manifest' | 'invoke' | 'handle_webhook' | 'handoff';

const errorAnswer = {
  type: 'object',
  required: ['status', 'message'],
  additionalProperties: false,
  properties: {
    status: { const: 'error' },
    message: { type: 'string', maxLength: 10_000 },
    retryable: { type: 'boolean' },
    retryAfterMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
  },
};

export const ANSWERS: Record<Exclude<ExportName, 'manifest'>, object> = {
  invoke: {
    oneOf: [
      {
        type: 'object',
        required: ['status', 'output'],
        additionalProperties: false,
        properties: { status: { const: 'ok' }, output: true },
      },
      {
        type: 'object',
        required: ['status', 'externalId'],
        additionalProperties: false,
        properties: {
          status: { const: 'pending' },
          externalId: { type: 'string', minLength: 1, maxLength: 200 },
          callbackTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 604_800 },
        },
      },
      errorAnswer,
    ],
  },
  handle_webhook: {
    oneOf: [
      {
        type: 'object',
        required: ['status', 'event'],
        additionalProperties: false,
        properties: {
          status: { const: 'event' },
          event: {
            type: 'object',
            required: ['externalId', 'eventId', 'status'],
            additionalProperties: false,
            properties: {
              externalId: { type: 'string', minLength: 1, maxLength: 200 },
              eventId: { type: 'string', minLength: 1, maxLength: 200 },
              status: { enum: ['completed', 'failed', 'pending'] },
              output: true,
              error: { type: 'string', maxLength: 10_000 },
            },
          },
        },
      },
      {
        type: 'object',
        required: ['status'],
        additionalProperties: false,
        properties: { status: { const: 'ignored' } },
      },
      {
        type: 'object',
        required: ['status', 'message'],
        additionalProperties: false,
        properties: { status: { const: 'rejected' }, message: { type: 'string', maxLength: 10_000 } },
      },
      errorAnswer,
    ],
  },
  handoff: {
    oneOf: [
      {
        type: 'object',
        required: ['status', 'handoff'],
        additionalProperties: false,
        properties: {
          status: { const: 'ok' },
          handoff: {
            oneOf: [
              { type: 'null' },
              {
                type: 'object',
                required: ['url', 'expiresAt'],
                additionalProperties: false,
                properties: {
                  url: { type: 'string', maxLength: 4000, pattern: '^https?://' },
                  expiresAt: {
                    type: 'string',
                    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$',
                  },
                },
              },
            ],
          },
        },
      },
      errorAnswer,
    ],
  },
};
