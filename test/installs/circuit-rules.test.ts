// The circuit's arithmetic, rule by rule (docs/calls.md "The circuit"; an attempt's steps 2, 4 and 7):
// pure functions, so every case is a row of a table.
import { describe, expect, it } from 'vitest';
import {
  type CircuitCount,
  type CircuitRow,
  CLOSED,
  type CountedAttempt,
  countOf,
  gateOf,
  nextCircuit,
  settingsInForce,
  shownCircuit,
} from '../../src/installs/circuit/circuit-rules.ts';

const NOW = new Date('2026-11-24T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const SETTINGS = { failureThreshold: 5, openSeconds: 30 };
const row = (fields: Partial<CircuitRow>): CircuitRow => ({ ...CLOSED, ...fields });

describe('what counts (countOf)', () => {
  const base: CountedAttempt = {
    status: 'error',
    timeoutMs: 10_000,
    actionTimeoutMs: 10_000,
    msLeftAtEnd: 60_000,
  };
  const cases: [string, Partial<CountedAttempt>, CircuitCount][] = [
    ['an error answer the app calls retryable is an outage', { reason: 'error', retryable: true }, 'outage'],
    [
      'a timeout with its action’s whole time is an outage',
      { status: 'timeout', reason: 'timeout' },
      'outage',
    ],
    [
      'a timeout of an attempt the step’s time cut short (less than its action’s time) counts nothing',
      { status: 'timeout', reason: 'timeout', timeoutMs: 4_000 },
      'none',
    ],
    [
      'a retryable error in the step’s last two seconds counts nothing',
      { reason: 'error', retryable: true, msLeftAtEnd: 1_500 },
      'none',
    ],
    [
      'a retryable error just before the last two seconds is an outage',
      { reason: 'error', retryable: true, msLeftAtEnd: 2_001 },
      'outage',
    ],
    [
      'a timeout in the step’s last two seconds counts nothing',
      { status: 'timeout', msLeftAtEnd: 0 },
      'none',
    ],
    ['a final error (not retryable) counts nothing', { reason: 'error', retryable: false }, 'none'],
    ['an error answer that says nothing of retrying counts nothing', { reason: 'error' }, 'none'],
    ['a trap counts nothing', { reason: 'trapped' }, 'none'],
    ['an answer outside the contract counts nothing', { reason: 'contract' }, 'none'],
    ['output that fails the action’s schema counts nothing', { reason: 'output' }, 'none'],
    ['a busy runner counts nothing', { reason: 'busy' }, 'none'],
    ['an unreachable runner counts nothing', { reason: 'unreachable' }, 'none'],
    ['a call no runner took counts nothing', { reason: 'not_sent' }, 'none'],
    ['the runner’s own failure counts nothing', { reason: 'internal' }, 'none'],
    ['a success counts as success', { status: 'success' }, 'success'],
    ['pending (the vendor took the work) counts as success', { status: 'pending' }, 'success'],
    [
      'a retryable error with no step deadline is an outage',
      { reason: 'error', retryable: true, msLeftAtEnd: null },
      'outage',
    ],
  ];
  it.each(cases)('%s', (_sentence, fields, expected) => {
    expect(countOf({ ...base, ...fields })).toBe(expected);
  });
});

describe('the gate of a new attempt (gateOf, step 2)', () => {
  it.each([
    ['no row: closed with no count', null, { kind: 'closed', failures: 0 }],
    [
      'closed with outages counted passes and says how many',
      row({ failures: 3 }),
      { kind: 'closed', failures: 3 },
    ],
    [
      'open within its open time refuses until it ends',
      row({ state: 'open', failures: 5, openedAt: ago(10) }),
      { kind: 'refused', state: 'open', until: ago(-20) },
    ],
    [
      'open past its open time: a trial is due',
      row({ state: 'open', failures: 5, openedAt: ago(30) }),
      { kind: 'trial_due' },
    ],
    [
      'half-open with its trial out refuses',
      row({ state: 'half_open', trialId: 't', trialClaimedAt: ago(29) }),
      { kind: 'refused', state: 'half_open', until: ago(-1) },
    ],
    [
      'half-open whose trial never reported frees the slot after another open time',
      row({ state: 'half_open', trialId: 't', trialClaimedAt: ago(30) }),
      { kind: 'trial_due' },
    ],
    ['half-open with the slot freed: a trial is due', row({ state: 'half_open' }), { kind: 'trial_due' }],
  ] as const)('%s', (_sentence, circuit, expected) => {
    expect(gateOf(circuit, SETTINGS, NOW)).toEqual(expected);
  });

  it('uses the settings in force: the install’s own, else the deployment’s', () => {
    const open = row({ state: 'open', openedAt: ago(10) });
    const own = settingsInForce({ circuitFailureThreshold: null, circuitOpenSeconds: 5 }, SETTINGS);
    expect(own).toEqual({ failureThreshold: 5, openSeconds: 5 });
    expect(gateOf(open, own, NOW).kind).toBe('trial_due');
    expect(gateOf(open, SETTINGS, NOW).kind).toBe('refused');
  });
});

describe('the move after an attempt (nextCircuit, step 7)', () => {
  it('a success on a circuit with no outage count writes nothing', () => {
    expect(nextCircuit(null, 'success', null, SETTINGS, NOW)).toEqual({ write: false });
    expect(nextCircuit(row({}), 'success', null, SETTINGS, NOW)).toEqual({ write: false });
  });

  it('an attempt that counts nothing writes nothing outside a trial', () => {
    expect(nextCircuit(row({ failures: 2 }), 'none', null, SETTINGS, NOW)).toEqual({ write: false });
  });

  it('a success clears the count of a closed circuit without moving its state', () => {
    const since = ago(100);
    expect(nextCircuit(row({ failures: 4, since }), 'success', null, SETTINGS, NOW)).toEqual({
      write: true,
      row: row({ failures: 0, since }),
      announce: null,
    });
  });

  it('outages add up below the threshold', () => {
    expect(nextCircuit(row({ failures: 3 }), 'outage', null, SETTINGS, NOW)).toEqual({
      write: true,
      row: row({ failures: 4 }),
      announce: null,
    });
  });

  it('the outage that reaches the threshold opens the circuit, now, and announces it', () => {
    expect(nextCircuit(row({ failures: 4 }), 'outage', null, SETTINGS, NOW)).toEqual({
      write: true,
      row: row({ state: 'open', failures: 5, since: NOW, openedAt: NOW }),
      announce: 'opened',
    });
    const one = { failureThreshold: 1, openSeconds: 30 };
    expect(nextCircuit(null, 'outage', null, one, NOW)).toMatchObject({ announce: 'opened' });
  });

  it('an outage on a circuit another attempt already opened only counts', () => {
    const open = row({ state: 'open', failures: 5, since: ago(3), openedAt: ago(3) });
    expect(nextCircuit(open, 'outage', null, SETTINGS, NOW)).toEqual({
      write: true,
      row: { ...open, failures: 6 },
      announce: null,
    });
  });

  const trial = row({
    state: 'half_open',
    failures: 5,
    since: ago(1),
    openedAt: ago(31),
    trialId: 'mine',
    trialClaimedAt: ago(1),
  });

  it('the trial’s success closes the circuit, clears the count and announces it', () => {
    expect(nextCircuit(trial, 'success', 'mine', SETTINGS, NOW)).toEqual({
      write: true,
      row: { ...trial, state: 'closed', failures: 0, since: NOW, trialId: null, trialClaimedAt: null },
      announce: 'closed',
    });
  });

  it('the trial’s outage re-opens the circuit for another open time, announcing nothing', () => {
    expect(nextCircuit(trial, 'outage', 'mine', SETTINGS, NOW)).toEqual({
      write: true,
      row: {
        ...trial,
        state: 'open',
        failures: 6,
        since: NOW,
        openedAt: NOW,
        trialId: null,
        trialClaimedAt: null,
      },
      announce: null,
    });
  });

  it('a trial that tells nothing (the runner was busy) frees the slot at once', () => {
    expect(nextCircuit(trial, 'none', 'mine', SETTINGS, NOW)).toEqual({
      write: true,
      row: { ...trial, trialId: null, trialClaimedAt: null },
      announce: null,
    });
  });

  it('a lapsed trial, whose slot another attempt took, moves nothing', () => {
    for (const count of ['success', 'outage', 'none'] as const) {
      expect(nextCircuit(trial, count, 'not-mine', SETTINGS, NOW)).toEqual({ write: false });
    }
  });
});

describe('the circuit as a reader sees it (shownCircuit)', () => {
  it('shows an open circuit past its open time as half-open since the open time ended', () => {
    expect(
      shownCircuit(row({ state: 'open', failures: 5, since: ago(40), openedAt: ago(40) }), SETTINGS, NOW),
    ).toEqual({ state: 'half_open', failures: 5, since: ago(10) });
  });

  it('shows the row as it is otherwise, and no row as closed, never moved', () => {
    expect(shownCircuit(null, SETTINGS, NOW)).toEqual({ state: 'closed', failures: 0, since: null });
    const open = row({ state: 'open', failures: 5, since: ago(5), openedAt: ago(5) });
    expect(shownCircuit(open, SETTINGS, NOW)).toEqual({ state: 'open', failures: 5, since: ago(5) });
  });
});
