// When the fallback takes a call (docs/calls.md "Fallbacks"), rule by rule: a pure function.
import { describe, expect, it } from 'vitest';
import { type FallbackInput, fallbackReason } from '../../src/calls/fallback-rules.ts';
import type { AttemptResult } from '../../src/calls/outcome.ts';

const NOW = 1_000_000;
const result = (
  status: AttemptResult['status'],
  reason?: string,
  retryable?: boolean,
): FallbackInput['end'] => ({
  kind: 'result',
  result: {
    status,
    ...(reason
      ? {
          error: {
            code: 'app_call_failed',
            reason,
            message: 'm',
            ...(retryable !== undefined ? { retryable } : {}),
          },
        }
      : {}),
  },
});
const input = (fields: Partial<FallbackInput>): FallbackInput => ({
  end: result('error', 'error', true),
  counted: 'outage',
  idempotent: false,
  now: NOW,
  deadline: NOW + 60_000,
  ...fields,
});

describe('fallbackReason', () => {
  it.each([
    [
      'the named install refused with an open circuit',
      { end: { kind: 'refused', code: 'app_circuit_open' }, counted: null },
      'circuit_open',
    ],
    ['the vendor’s outage outlasted the retries: a retryable error', {}, 'outage'],
    [
      'an idempotent action’s timeout the step’s time did not cut short',
      { end: result('timeout', 'timeout'), idempotent: true },
      'outage',
    ],
    [
      'never a non-idempotent action’s timeout',
      { end: result('timeout', 'timeout'), idempotent: false },
      null,
    ],
    [
      'never an outage the step’s time cut short (it counted nothing)',
      { end: result('timeout', 'timeout'), idempotent: true, counted: 'none' },
      null,
    ],
    [
      'never an unreachable runner',
      { end: result('error', 'unreachable'), counted: 'none', idempotent: true },
      null,
    ],
    [
      'never the runner’s own failure',
      { end: result('error', 'internal'), counted: 'none', idempotent: true },
      null,
    ],
    ['never a final error', { end: result('error', 'error', false), counted: 'none' }, null],
    ['never a trap', { end: result('error', 'trapped'), counted: 'none' }, null],
    ['never a quota refusal', { end: { kind: 'refused', code: 'app_quota_exceeded' }, counted: null }, null],
    ['never a blocked module', { end: { kind: 'refused', code: 'app_blocked' }, counted: null }, null],
    ['never invalid input', { end: { kind: 'refused', code: 'validation_error' }, counted: null }, null],
    [
      'never a disabled or unconfigured install',
      { end: { kind: 'refused', code: 'install_not_configured' }, counted: null },
      null,
    ],
    [
      'only while an attempt can still end before the deadline',
      { end: { kind: 'refused', code: 'app_circuit_open' }, counted: null, deadline: NOW + 50 },
      null,
    ],
  ] as [string, Partial<FallbackInput>, string | null][])('%s', (_sentence, fields, expected) => {
    expect(fallbackReason(input(fields))).toBe(expected);
  });
});
