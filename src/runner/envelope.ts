// The module contract's envelopes (docs/module-contract.md): the per-call secret tag, the config as the
// module reads it, and the answers each export may give.
import { randomBytes } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { depthExcess, depthMessage } from '../http/json-depth.ts';
import { mayHoldUnstorable, storableJson } from '../http/unstorable-text.ts';
import { RunnerFailure } from './errors.ts';
import { MAX_NESTED_STRING_DEPTH, NestedTooDeep, type Redactor } from './redaction.ts';
import type { OutputBytes } from './threads/protocol.ts';

/** The largest answer; a sandbox thread sends only the size of a larger one (kernel.js MAX_OUTPUT_BYTES). */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** 16 random bytes in base64url: 22 characters, drawn for every call of an export. */
export function drawSecretTag(): string {
  return randomBytes(16).toString('base64url');
}

const CONFIG_PLACEHOLDER = /\{\{secret:([A-Za-z][A-Za-z0-9_]{0,63})\}\}/g;

/** The config as the module reads it: each {{secret:NAME}} in its text becomes {{secret:NAME:TAG}}. */
export function tagConfig(value: unknown, tag: string): unknown {
  if (typeof value === 'string')
    return value.replace(CONFIG_PLACEHOLDER, (_m, name: string) => `{{secret:${name}:${tag}}}`);
  if (Array.isArray(value)) return value.map((item) => tagConfig(item, tag));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, tagConfig(item, tag)]));
  }
  return value;
}

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

const ANSWERS: Record<Exclude<ExportName, 'manifest'>, object> = {
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

const ajv = new Ajv2020({ allErrors: false, strict: false });
const validators = Object.fromEntries(
  Object.entries(ANSWERS).map(([name, schema]) => [name, ajv.compile(schema)]),
);

/**
 * Reads an export's answer: at most 1 MiB, redacted before it is parsed and again once parsed (so no
 * secret, derived credential, cached value or tag survives into it in any spelling), JSON, and one of the
 * export's answer shapes. U+0000 and lone surrogates in its strings and names become U+FFFD here, the
 * one place every answer passes (unstorable-text.ts): records, run context, evaluation, test calls and
 * webhook events then all hold the same storable text.
 */
export function readAnswer(exportName: ExportName, output: OutputBytes, redactor: Redactor): unknown {
  // Past MAX_OUTPUT_BYTES its thread sent only the size.
  if (!(output instanceof Uint8Array) || output.byteLength > MAX_ANSWER_BYTES) {
    throw new RunnerFailure('bad_output', `the ${exportName} answer is larger than 1 MiB`);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(output);
  } catch {
    throw new RunnerFailure('bad_output', `the ${exportName} answer is not UTF-8 text`);
  }
  if (depthExcess(text) !== null)
    throw new RunnerFailure('bad_output', `the ${exportName} answer ${depthMessage()}`);
  let answer: unknown;
  try {
    answer = JSON.parse(redactor.apply(text));
  } catch {
    throw new RunnerFailure('bad_output', `the ${exportName} answer is not JSON`);
  }
  if (exportName === 'manifest') return answer;
  // Then what it means: strings written with other escapes, JSON nested in strings.
  try {
    answer = redactor.applyDeep(answer);
  } catch (error) {
    if (!(error instanceof NestedTooDeep)) throw error;
    throw new RunnerFailure(
      'bad_output',
      `the ${exportName} answer holds JSON in a string nested deeper than ${MAX_NESTED_STRING_DEPTH} levels`,
    );
  }
  if (mayHoldUnstorable(text)) answer = storableJson(answer);
  const validate = validators[exportName];
  if (validate && !validate(answer)) {
    throw new RunnerFailure('bad_output', `the ${exportName} answer does not match the module contract`);
  }
  return answer;
}
