// Queue dispatch on notice (docs/runs.md, "Queue dispatch"). DBOS polls each queue every 20 ms (our
// minPollingIntervalMs), four or five statements a poll even when nothing is queued. DBOS has no public
// way to wake its queue runner, so this module — the only one that reaches DBOS's internals — wraps the
// runner's per-queue poll (WFQueueRunner.pollQueue in @dbos-inc/dbos-sdk/dist/src/wfqueue.js, checked
// against DBOS Transact 5.3.0): the 20 ms cadence stays, but a tick goes to the database only when
// shouldPoll says something may be startable. A missed notice costs latency (the safety poll), never a run.
import { wfQueueRunner } from '@dbos-inc/dbos-sdk/internal/wfqueue';
import type { Logger } from 'pino';
import { startQueueListener } from './queue-listener.ts';
import { shouldPoll } from './queue-wake-rule.ts';

/** What pollQueue is handed in 5.3.0: the executor (the parts it uses) and the queue. */
interface Executor {
  systemDatabase: { countRunningWorkflowsForQueue(queue: string): number };
  dispatchDequeuedWorkflows(ids: string[], ownerXid: string): Promise<void>;
  logger: { warn(message: unknown, ...rest: unknown[]): void };
}
type PollQueue = (exec: Executor, queue: { name: string }) => Promise<boolean>;
interface Runner {
  pollQueue: PollQueue;
}

interface QueueState {
  notified: boolean;
  lastClaimed: number;
  running: number;
  lastPollAt: number;
  failedPolls: number;
}

/** How DBOS's pollQueue logs a poll that failed for any reason but contention (which it backs off itself). */
const POLL_FAILED = 'Error getting startable workflows';

export interface QueueWakeStats {
  /** Ticks that reached the database, and ticks answered without it. */
  polls: number;
  skipped: number;
}

export interface QueueWake {
  stats(): QueueWakeStats;
  /** Closes the LISTEN connection: notices stop, and polling falls back to every tick. */
  stopListening(): Promise<void>;
  /** Restores DBOS's own poll and closes the listener. */
  stop(): Promise<void>;
}

/** The executor's logger, calling `onFailure` when DBOS warns of a failed poll. */
function noticingFailure(logger: Executor['logger'], onFailure: () => void): Executor['logger'] {
  return new Proxy(logger, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== 'warn') return typeof value === 'function' ? value.bind(target) : value;
      return (message: unknown, ...rest: unknown[]) => {
        if (typeof message === 'string' && message.startsWith(POLL_FAILED)) onFailure();
        return target.warn(message, ...rest);
      };
    },
  });
}

/** Installs the gate; call before DBOS.launch, and start the listener once the trigger exists. */
export function installQueueWake(options: { safetyMs: number; logger: Logger }) {
  const runner = wfQueueRunner as unknown as Runner;
  const original = runner.pollQueue;
  const states = new Map<string, QueueState>();
  const stats: QueueWakeStats = { polls: 0, skipped: 0 };
  let listening = false;
  const stateOf = (name: string) => {
    let state = states.get(name);
    if (!state) {
      state = { notified: true, lastClaimed: 0, running: 0, lastPollAt: 0, failedPolls: 0 };
      states.set(name, state);
    }
    return state;
  };

  runner.pollQueue = async function gatedPoll(this: Runner, exec, queue) {
    const state = stateOf(queue.name);
    const runningNow = exec.systemDatabase.countRunningWorkflowsForQueue(queue.name);
    const poll = shouldPoll({
      listening,
      notified: state.notified,
      lastClaimed: state.lastClaimed,
      runningNow,
      runningBefore: state.running,
      sinceLastPoll: Date.now() - state.lastPollAt,
      safetyMs: options.safetyMs,
      failedPolls: state.failedPolls,
    });
    state.running = runningNow;
    if (!poll) {
      stats.skipped++;
      return false; // no contention: DBOS keeps the 20 ms cadence
    }
    stats.polls++;
    // Cleared before the poll reads: a notice arriving meanwhile asks for the next tick.
    state.notified = false;
    state.lastPollAt = Date.now();
    let claimed = 0;
    let failed = false;
    const counting = new Proxy(exec, {
      get(target, property) {
        if (property === 'dispatchDequeuedWorkflows') {
          return (ids: string[], ownerXid: string) => {
            claimed += ids.length;
            return target.dispatchDequeuedWorkflows(ids, ownerXid);
          };
        }
        // DBOS catches a failed poll and only logs it: its warning is how the gate learns of it.
        if (property === 'logger')
          return noticingFailure(target.logger, () => {
            failed = true;
          });
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      return await original.call(this, counting, queue);
    } finally {
      state.failedPolls = failed ? state.failedPolls + 1 : 0;
      state.lastClaimed = claimed;
      state.running = exec.systemDatabase.countRunningWorkflowsForQueue(queue.name);
    }
  };

  let listener: { stop(): Promise<void> } | null = null;
  const wake: QueueWake & { listen(databaseUrl: string): void } = {
    listen(databaseUrl) {
      listener = startQueueListener(
        databaseUrl,
        {
          onNotice: (queue) => {
            stateOf(queue).notified = true;
          },
          onListening: (now) => {
            listening = now;
            // Whatever was enqueued while not listening went unnoticed: poll every queue once.
            if (now) for (const state of states.values()) state.notified = true;
          },
        },
        options.logger,
      );
    },
    stats: () => ({ ...stats }),
    stopListening: async () => {
      await listener?.stop();
      listener = null;
    },
    async stop() {
      runner.pollQueue = original;
      await wake.stopListening();
    },
  };
  return wake;
}
