// The retry ladder, pure: 1 min, 5 min, 30 min, 2 h after the first four failures; the fifth exhausts;
// a manual retry of an exhausted delivery is one more attempt.
import { describe, expect, it } from 'vitest';
import { afterFailure, MAX_ATTEMPTS } from '../../src/outbound-webhooks/sending/retry-rules.ts';

const AT = new Date('2030-01-01T00:00:00.000Z');
const plus = (ms: number) => new Date(AT.getTime() + ms);

describe('afterFailure', () => {
  const table: [number, ReturnType<typeof afterFailure>][] = [
    [1, { status: 'failed', nextAttemptAt: plus(60_000) }],
    [2, { status: 'failed', nextAttemptAt: plus(300_000) }],
    [3, { status: 'failed', nextAttemptAt: plus(1_800_000) }],
    [4, { status: 'failed', nextAttemptAt: plus(7_200_000) }],
    [5, { status: 'exhausted' }],
    [6, { status: 'exhausted' }],
  ];
  for (const [attempts, expected] of table) {
    it(`after attempt ${attempts}: ${expected.status}${attempts > 5 ? ' again' : ''}`, () => {
      expect(afterFailure(attempts, AT)).toEqual(expected);
    });
  }
  it('allows five attempts in all', () => expect(MAX_ATTEMPTS).toBe(5));
});
