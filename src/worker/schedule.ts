// Periodic passes beside the worker's queues (the retention sweep): a first pass after a delay, then one
// pass an interval after the previous one ended, so two passes of one process never overlap. The timer
// is injected: tests fire it themselves instead of waiting, and the worker's real one never keeps the
// process alive.

/** The two calls of a timer a schedule needs. */
export interface Timer {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timer, unref'd: a pending pass never holds a stopping process open. */
export const realTimer: Timer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface Background {
  /** No further pass starts; resolves once a pass under way has ended. */
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  firstDelayMs: number;
  intervalMs: number;
  pass: () => Promise<unknown>;
  /** A pass that threw: told here, and the next pass is scheduled as usual. */
  onError: (error: unknown) => void;
  timer?: Timer;
}

export function schedulePasses(options: ScheduleOptions): Background {
  const timer = options.timer ?? realTimer;
  let stopped = false;
  let pending: unknown = null;
  let running: Promise<void> | null = null;

  const run = () => {
    pending = null;
    if (stopped) return;
    running = options
      .pass()
      .then(
        () => undefined,
        (error: unknown) => options.onError(error),
      )
      .finally(() => {
        running = null;
        if (!stopped) pending = timer.setTimeout(run, options.intervalMs);
      });
  };
  pending = timer.setTimeout(run, options.firstDelayMs);

  return {
    async stop() {
      stopped = true;
      if (pending !== null) timer.clearTimeout(pending);
      pending = null;
      await running;
    },
  };
}

/** Several background parts as one: started by the caller, stopped together. */
export function together(...parts: Background[]): Background {
  return {
    async stop() {
      await Promise.all(parts.map((part) => part.stop()));
    },
  };
}
