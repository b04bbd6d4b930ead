// readAnswer applies the JSON boundary's rule (src/http/unstorable-text.ts) to every export's answer:
// U+0000 and lone surrogates become U+FFFD in an invoke's output and error message and a webhook's event.
import { describe, expect, it } from 'vitest';
import { readAnswer } from '../../src/runner/answer.ts';
import { answerValidators } from '../../src/runner/answer-validators.ts';
import { Redactor } from '../../src/runner/redaction.ts';

const R = '\ufffd';
const read = (name: 'invoke' | 'handle_webhook', text: string) =>
  readAnswer(name, new TextEncoder().encode(text), new Redactor(), answerValidators());

describe('readAnswer: text PostgreSQL cannot store', () => {
  it.each([
    [
      'an output’s strings and names',
      'invoke',
      '{"status":"ok","output":{"n\\u0000":"a\\ud800","pair":"\\ud83d\\ude00"}}',
      { status: 'ok', output: { [`n${R}`]: `a${R}`, pair: '😀' } },
    ],
    [
      'an error answer’s message',
      'invoke',
      '{"status":"error","message":"vendor said \\u0000"}',
      { status: 'error', message: `vendor said ${R}` },
    ],
    [
      'a webhook event',
      'handle_webhook',
      '{"status":"event","event":{"externalId":"x\\udc00","eventId":"e","status":"completed","output":["\\u0000"]}}',
      { status: 'event', event: { externalId: `x${R}`, eventId: 'e', status: 'completed', output: [R] } },
    ],
    [
      'JSON escapes inside a string that holds JSON are text, kept',
      'invoke',
      '{"status":"ok","output":"{\\"a\\":\\"\\\\u0000\\"}"}',
      { status: 'ok', output: '{"a":"\\u0000"}' },
    ],
  ] as const)('%s', (_name, exportName, text, expected) => {
    expect(read(exportName, text)).toEqual(expected);
  });
});
