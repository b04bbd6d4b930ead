// What a test call's answer shows was redacted (src/calls/redaction-marks.ts): one row per sentence.
import { describe, expect, it } from 'vitest';
import { redactionMarksOf } from '../../src/calls/redaction-marks.ts';

const secret = (name: string, ...places: string[]) => ({
  placeholder: `[secret:${name}]`,
  kind: 'secret',
  name,
  in: places,
});

describe('redactionMarksOf', () => {
  const rows: [string, Parameters<typeof redactionMarksOf>[0], unknown[]][] = [
    ['nothing redacted: none', { output: { ok: true }, logs: [{ message: 'fine' }] }, []],
    [
      'a secret in the output, at any depth',
      { output: { vendor: { body: '{"sawKey":"[secret:API_KEY]"}' } }, logs: [] },
      [secret('API_KEY', 'output')],
    ],
    [
      'a placeholder met twice is named once, with every part it stands in, in answer order',
      {
        output: ['[secret:API_KEY]', '[secret:API_KEY]'],
        error: { message: 'refused [secret:API_KEY]' },
        logs: [{ message: 'sent [secret:API_KEY]' }, { message: 'again [secret:API_KEY]' }],
      },
      [secret('API_KEY', 'output', 'error', 'logs')],
    ],
    [
      'derived credentials and cached values, sorted by placeholder',
      { externalId: 'job-[cache:token]', logs: [{ message: 'Authorization: [auth:bearer]' }] },
      [
        { placeholder: '[auth:bearer]', kind: 'auth', name: 'bearer', in: ['logs'] },
        { placeholder: '[cache:token]', kind: 'cache', name: 'token', in: ['externalId'] },
      ],
    ],
    [
      'the error’s details are read too',
      { error: { message: 'failed', details: { sent: '[secret:TOKEN]' } }, logs: [] },
      [secret('TOKEN', 'error')],
    ],
    [
      'text that only looks like one is not: another label, an empty or spaced name',
      { output: '[tag] [secret:] [secret:A B] [config:x] secret:API_KEY', logs: [] },
      [],
    ],
  ];
  it.each(rows)('%s', (_name, answer, expected) => {
    expect(redactionMarksOf(answer)).toEqual(expected);
  });
});
