// The line a command prints for the error that ended it: never Drizzle's query parameters, and the
// cause's own words where a wrapper's message leaves them out.
import { describe, expect, it } from 'vitest';
import { fatalErrorText, withoutQueryParameters } from '../src/error-text.ts';

const drizzleError = (cause: Error) =>
  new Error('Failed query: insert into "app_versions" ("name") values ($1)\nparams: applicant-data', {
    cause,
  });
const pgError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('fatalErrorText', () => {
  it.each([
    [
      'a query failure names its cause and code, without the parameters',
      drizzleError(pgError('duplicate key value violates unique constraint "app_versions_key"', '23505')),
      'Failed query: insert into "app_versions" ("name") values ($1): duplicate key value violates unique constraint "app_versions_key" (23505)',
    ],
    [
      'a cause without a code',
      drizzleError(new Error('Connection terminated unexpectedly')),
      'Failed query: insert into "app_versions" ("name") values ($1): Connection terminated unexpectedly',
    ],
    ['a plain error', new Error('the port 3000 is taken'), 'the port 3000 is taken'],
    [
      'a cause the message already says',
      new Error('could not start: no such file', { cause: new Error('no such file') }),
      'could not start: no such file',
    ],
    [
      'a cause quoting parameters itself',
      new Error('step failed', { cause: new Error('Failed query: select 1\nparams: secret') }),
      'step failed: Failed query: select 1',
    ],
    ['not an error', 'stopped', 'stopped'],
  ])('%s', (_name, error, expected) => {
    expect(fatalErrorText(error)).toBe(expected);
    expect(fatalErrorText(error)).not.toContain('applicant-data');
  });
});

describe('withoutQueryParameters', () => {
  it.each([
    ['Failed query: select $1\nparams: a,b', 'Failed query: select $1'],
    ['no parameters here', 'no parameters here'],
    ['', ''],
  ])('%s', (text, expected) => {
    expect(withoutQueryParameters(text)).toBe(expected);
  });
});
