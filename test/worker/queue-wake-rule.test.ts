import { describe, expect, it } from 'vitest';
import { type QueueView, retryAfterMs, shouldPoll } from '../../src/worker/queue-wake-rule.ts';

const idle: QueueView = {
  listening: true,
  notified: false,
  lastClaimed: 0,
  runningNow: 3,
  runningBefore: 3,
  sinceLastPoll: 100,
  safetyMs: 1_000,
  failedPolls: 0,
};

describe('shouldPoll', () => {
  it.each<[string, Partial<QueueView>, boolean]>([
    ['an idle queue, listened to, within the safety interval', {}, false],
    ['more running than before (its own claim)', { runningNow: 4 }, false],
    ['no listener', { listening: false }, true],
    ['a notice', { notified: true }, true],
    ['the last poll claimed', { lastClaimed: 2 }, true],
    ['a workflow of the queue finished here', { runningNow: 2 }, true],
    ['the safety interval passed', { sinceLastPoll: 1_000 }, true],
    [
      'one poll failed, 30 ms ago, though notified and not listening',
      { failedPolls: 1, sinceLastPoll: 30, notified: true, listening: false },
      false,
    ],
    ['one poll failed, 40 ms ago', { failedPolls: 1, sinceLastPoll: 40 }, true],
    ['three failed, 100 ms ago', { failedPolls: 3, sinceLastPoll: 100 }, false],
    ['three failed, 160 ms ago', { failedPolls: 3, sinceLastPoll: 160 }, true],
    [
      'sixty failed, 999 ms ago: the wait stops at the safety interval',
      { failedPolls: 60, sinceLastPoll: 999 },
      false,
    ],
    ['sixty failed, 1 s ago', { failedPolls: 60, sinceLastPoll: 1_000 }, true],
  ])('%s: %s', (_case, change, expected) => {
    expect(shouldPoll({ ...idle, ...change })).toBe(expected);
  });
});

describe('retryAfterMs', () => {
  it.each<[number, number, number]>([
    [1, 1_000, 40],
    [2, 1_000, 80],
    [5, 1_000, 640],
    [6, 1_000, 1_000],
    [1_000, 1_000, 1_000],
    [3, 100, 100],
  ])('after %i failed polls, safety %i ms: %i ms', (failed, safety, expected) => {
    expect(retryAfterMs(failed, safety)).toBe(expected);
  });
});
