// The rule of src/cli/stop-signals.ts, one row per case: a repeat of the same signal within a moment is
// the same request (npm forwards the terminal's Ctrl-C); anything else asks for more haste.
import { describe, expect, it } from 'vitest';
import {
  afterSignal,
  NO_STOP,
  SAME_REQUEST_MS,
  type StopLevel,
  type StopSignal,
  type StopState,
} from '../../src/cli/stop-signals.ts';

/** The acts of a sequence of signals received in order. */
function actsOf(signals: StopSignal[]): (StopLevel | null)[] {
  let state: StopState = NO_STOP;
  return signals.map((received) => {
    const next = afterSignal(state, received);
    state = next.state;
    return next.act;
  });
}

const INT = (at: number): StopSignal => ({ signal: 'SIGINT', at });
const TERM = (at: number): StopSignal => ({ signal: 'SIGTERM', at });

describe('afterSignal', () => {
  it.each([
    ['the first signal stops', [INT(0)], ['stop']],
    ['the first SIGTERM stops too', [TERM(0)], ['stop']],
    ["npm's forwarded copy of a Ctrl-C is the same request", [INT(0), INT(5)], ['stop', null]],
    ['so is a copy just inside the moment', [INT(0), INT(SAME_REQUEST_MS - 1)], ['stop', null]],
    ['a second Ctrl-C after the moment hurries', [INT(0), INT(SAME_REQUEST_MS)], ['stop', 'hurry']],
    ['another signal within the moment hurries', [INT(0), TERM(5)], ['stop', 'hurry']],
    ['a supervisor repeating SIGTERM later hurries', [TERM(0), TERM(5000)], ['stop', 'hurry']],
    [
      "the hurrying Ctrl-C's copy is that same request",
      [INT(0), INT(3), INT(2000), INT(2004)],
      ['stop', null, 'hurry', null],
    ],
    ['a third request exits at once', [INT(0), INT(2000), INT(4000)], ['stop', 'hurry', 'exit']],
    ['copies of the first do not extend its moment', [INT(0), INT(900), INT(1800)], ['stop', null, 'hurry']],
    [
      'after exit, every signal exits',
      [INT(0), INT(2000), INT(4000), TERM(4001)],
      ['stop', 'hurry', 'exit', 'exit'],
    ],
  ] as const)('%s', (_case, signals, acts) => {
    expect(actsOf([...signals])).toEqual(acts);
  });
});
