// What a stop signal asks of `platform start`, given the ones received before: the rule, pure (table
// tests in test/cli/stop-signals.test.ts). Ctrl-C under `npm start` reaches the platform twice, a few
// milliseconds apart: the terminal signals its whole process group, and npm forwards its own copy. A
// signal identical to the last one counted, within a moment of it, is that same request; any other asks
// for more haste: the first stops every part in turn, the second stops only what would outlive the
// process (the embedded PostgreSQL) and exits, the third exits at once.

/** How soon an identical signal is the same request (npm forwards within milliseconds, even under load). */
export const SAME_REQUEST_MS = 1000;

/** stop: every part in turn, then exit 0; hurry: PostgreSQL now, then exit 1; exit: at once, exit 1. */
export type StopLevel = 'stop' | 'hurry' | 'exit';

export interface StopSignal {
  signal: NodeJS.Signals;
  /** When it was received, in milliseconds of any monotonic clock. */
  at: number;
}

export interface StopState {
  level: StopLevel | null;
  /** The last signal that raised the level. */
  last: StopSignal | null;
}

export const NO_STOP: StopState = { level: null, last: null };

const NEXT: Record<StopLevel | 'none', StopLevel> = {
  none: 'stop',
  stop: 'hurry',
  hurry: 'exit',
  exit: 'exit',
};

/** The state after a signal, and what it newly asks (null: nothing, it repeats the last request). */
export function afterSignal(
  state: StopState,
  received: StopSignal,
): { state: StopState; act: StopLevel | null } {
  const { last } = state;
  if (last && received.signal === last.signal && received.at - last.at < SAME_REQUEST_MS) {
    return { state, act: null };
  }
  const level = NEXT[state.level ?? 'none'];
  return { state: { level, last: received }, act: level };
}
