// Which failures mean "the database does not answer now" (retried, 503) rather than "the request was
// wrong": pg's and Node's errors as they arrive, bare or wrapped by Drizzle.
import { describe, expect, it } from 'vitest';
import { isUnavailable, isUniqueViolation, pgErrorCode } from '../../src/db/errors.ts';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: rollback\nparams: '), { cause });

describe('isUnavailable', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED'), true],
    ['a reset connection', coded('ECONNRESET'), true],
    [
      'a server shutting down (57P01)',
      coded('57P01', 'terminating connection due to administrator command'),
      true,
    ],
    ['a server starting up (57P03)', coded('57P03', 'the database system is starting up'), true],
    ['too many connections (53300)', coded('53300'), true],
    ['a connection exception (08006)', coded('08006'), true],
    ['a connection that ended', new Error('Connection terminated unexpectedly'), true],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect'), true],
    [
      'a statement on a client whose connection failed',
      new Error('Client has encountered a connection error and is not queryable'),
      true,
    ],
    [
      'any of those wrapped by Drizzle',
      wrapped(new Error('Client has encountered a connection error and is not queryable')),
      true,
    ],
    ['inside an AggregateError', new AggregateError([coded('ECONNREFUSED')], 'all attempts failed'), true],
    ['a unique violation', coded('23505', 'duplicate key value'), false],
    ['a syntax error, wrapped', wrapped(coded('42601', 'syntax error')), false],
    ['a message that only mentions a connection', new Error('no connection named "x" in the config'), false],
    ['not an error', 'ECONNREFUSED', false],
    ['nothing', null, false],
  ])('%s', (_name, error, expected) => {
    expect(isUnavailable(error)).toBe(expected);
  });

  it('stops looking through causes that go round in circles', () => {
    const loop = new Error('outer') as Error & { cause?: unknown };
    loop.cause = loop;
    expect(isUnavailable(loop)).toBe(false);
  });
});

describe('pgErrorCode and isUniqueViolation', () => {
  it.each([
    ['bare', coded('23505'), '23505', true],
    ['wrapped by Drizzle', wrapped(coded('23505')), '23505', true],
    ['another code', coded('23503'), '23503', false],
    ['no code', new Error('x'), undefined, false],
  ])('%s', (_name, error, code, unique) => {
    expect(pgErrorCode(error)).toBe(code);
    expect(isUniqueViolation(error)).toBe(unique);
  });
});
