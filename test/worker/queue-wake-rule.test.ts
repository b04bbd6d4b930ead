import { describe, expect, it } from 'vitest';
import { type QueueView, shouldPoll } from '../../src/worker/queue-wake-rule.ts';

const idle: QueueView = {
  listening: true,
  notified: false,
  lastClaimed: 0,
  runningNow: 3,
  runningBefore: 3,
  sinceLastPoll: 100,
  safetyMs: 1_000,
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
  ])('%s: %s', (_case, change, expected) => {
    expect(shouldPoll({ ...idle, ...change })).toBe(expected);
  });
});
