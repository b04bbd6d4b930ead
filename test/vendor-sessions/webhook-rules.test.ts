// The decisions of a vendor webhook (src/vendor-sessions/webhook-rules.ts), one row per sentence of the rule:
// what the module's answer means, what a recorded event came to, and what the vendor is answered.
import { describe, expect, it } from 'vitest';
import type { CallbackStatus } from '../../src/vendor-sessions/tables.ts';
import {
  DUPLICATE,
  eventOutcome,
  IGNORED,
  type ModuleEvent,
  recordedAnswer,
  verdictOf,
} from '../../src/vendor-sessions/webhook-rules.ts';

const FOUND = 'sess-1';
const event = (over: Partial<ModuleEvent> = {}): ModuleEvent => ({
  externalId: FOUND,
  eventId: 'evt-1',
  status: 'completed',
  output: { decision: 'approved' },
  ...over,
});
const validIfApproved = (output: unknown) =>
  typeof output === 'object' && output !== null && (output as { decision?: unknown }).decision === 'approved';

describe('verdictOf', () => {
  it.each([
    ['ignored: nothing for the platform', { status: 'ignored' }, { kind: 'ignored' }],
    [
      'rejected: the module refused it',
      { status: 'rejected', message: 'bad signature' },
      { kind: 'rejected', why: 'module' },
    ],
    [
      'an error answer: the module failed',
      { status: 'error', message: 'vendor down' },
      { kind: 'failed', reason: 'error' },
    ],
    [
      'an event naming another session than the one found',
      { status: 'event', event: event({ externalId: 'sess-2' }) },
      { kind: 'rejected', why: 'another_session' },
    ],
    [
      'another session even when its output is broken (the session comes first)',
      { status: 'event', event: event({ externalId: 'sess-2', output: { decision: 'maybe' } }) },
      { kind: 'rejected', why: 'another_session' },
    ],
    [
      'a completion whose output breaks the action’s schema',
      { status: 'event', event: event({ output: { decision: 'maybe' } }) },
      { kind: 'failed', reason: 'output' },
    ],
    [
      'a completion without output, checked as null',
      { status: 'event', event: event({ output: undefined }) },
      { kind: 'failed', reason: 'output' },
    ],
    [
      'a completion with valid output',
      { status: 'event', event: event() },
      { kind: 'event', event: event() },
    ],
    [
      'a failure, whatever its output (only completions carry the step’s output)',
      { status: 'event', event: event({ status: 'failed', output: 'x', error: 'expired' }) },
      { kind: 'event', event: event({ status: 'failed', output: 'x', error: 'expired' }) },
    ],
    [
      'a pending event, whatever its output',
      { status: 'event', event: event({ status: 'pending', output: undefined }) },
      { kind: 'event', event: event({ status: 'pending', output: undefined }) },
    ],
  ])('%s', (_case, answer, verdict) => {
    expect(verdictOf(answer, FOUND, validIfApproved)).toEqual(verdict);
  });
});

describe('eventOutcome', () => {
  it.each<[string, ModuleEvent['status'], boolean, CallbackStatus, string]>([
    ['a completion that settled the session', 'completed', true, 'completed', 'completed'],
    ['a failure that settled it', 'failed', true, 'failed', 'failed'],
    ['a pending event on a pending session', 'pending', false, 'pending', 'accepted'],
    ['a pending event on a settled session', 'pending', false, 'completed', 'stale'],
    ['a pending event on a timed-out session', 'pending', false, 'timed_out', 'stale'],
    ['a completion after another won', 'completed', false, 'completed', 'stale'],
    ['a completion on a failed session', 'completed', false, 'failed', 'stale'],
    ['a failure on a timed-out session', 'failed', false, 'timed_out', 'stale'],
  ])('%s', (_case, status, won, sessionStatus, outcome) => {
    expect(eventOutcome(status, won, sessionStatus)).toBe(outcome);
  });
});

describe('the answers', () => {
  it.each([
    [
      'accepted',
      'accepted',
      'pending',
      202,
      { received: true, accepted: true, callbackId: 'c', status: 'pending' },
    ],
    ['completed', 'completed', 'completed', 202, { received: true, callbackId: 'c', status: 'completed' }],
    ['failed', 'failed', 'failed', 202, { received: true, callbackId: 'c', status: 'failed' }],
    [
      'stale, with the session’s status',
      'stale',
      'timed_out',
      200,
      { received: false, stale: true, callbackId: 'c', status: 'timed_out' },
    ],
  ] as const)('%s', (_case, outcome, status, statusCode, body) => {
    expect(recordedAnswer(outcome, 'c', status)).toEqual({ statusCode, body });
  });

  it('are 202 for an ignored delivery and 200 for a duplicate, naming no session', () => {
    expect(IGNORED).toEqual({ statusCode: 202, body: { received: false, ignored: true } });
    expect(DUPLICATE).toEqual({ statusCode: 200, body: { received: false, duplicate: true } });
  });
});
