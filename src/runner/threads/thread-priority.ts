// Nice values and CPU time of single sandbox threads, seen from the main thread (Linux keeps both per
// thread, by its task id). The pool learns a thread's task id as the one task that appears in
// /proc/self/task across the Worker's constructor (Node creates the OS thread there, synchronously), so
// the thread itself need not report it. Elsewhere (no /proc, or not allowed) nothing here acts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** What sandbox threads run at (they set it themselves once loaded; the pool sets it at their start). */
export const SANDBOX_NICENESS = 10;
/** What a thread whose task has run long runs at: below every thread serving short calls. */
export const LONG_TASK_NICENESS = 19;

function taskIds(): Set<number> | null {
  try {
    return new Set(readdirSync('/proc/self/task').map(Number));
  } catch {
    return null;
  }
}

/** Runs `start` (which starts one thread) and answers that thread's task id, or null when unknown. */
export function withTaskId<T>(start: () => T): { value: T; tid: number | null } {
  const before = taskIds();
  const value = start();
  const after = taskIds();
  if (!before || !after) return { value, tid: null };
  const added = [...after].filter((tid) => !before.has(tid));
  // Another thread started at the same moment elsewhere in the process: which is ours is not known.
  return { value, tid: added.length === 1 ? (added[0] as number) : null };
}

/**
 * Sets the thread's nice value; false when it could not (the thread ended, or raising a priority back
 * needs CAP_SYS_NICE or RLIMIT_NICE, which an unprivileged runner lacks).
 */
export function renice(tid: number | null, niceness: number): boolean {
  // Only a task of this process: a task id of a thread gone long ago may name another process's now.
  if (tid === null || !existsSync(`/proc/self/task/${tid}`)) return false;
  try {
    setPriority(tid, niceness);
    return true;
  } catch {
    return false;
  }
}

/** CPU time the thread has used so far, in ms (its scheduler statistics); null when unknown. */
export function cpuMs(tid: number | null): number | null {
  if (tid === null) return null;
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return null;
  }
}

/** How often a running task's CPU time is read. */
export const LONG_CHECK_MS = 50;
/** A task that has used this much CPU is long: its thread runs at LONG_TASK_NICENESS until it ends. */
export const LONG_TASK_CPU_MS = 50;

export interface WatchedThread {
  tid: number | null;
  /** Loaded: it has set its own nice value, and its CPU time is the task's from now on. */
  readonly ready: boolean;
}

/**
 * One task (a call or a warm-up) on a sandbox thread: once it has used LONG_TASK_CPU_MS of CPU after its
 * first LONG_CHECK_MS, its thread is lowered and `onLong` told. CPU, not wall time: a call waiting on a
 * vendor uses none. Its first LONG_CHECK_MS are not counted: the thread may spend them freeing what the
 * task before left (the instance of a call that grew its memory to 256 MiB), not on this task.
 */
export class TaskWatch {
  readonly since = Date.now();
  #long = false;
  #lowered = false;
  #cpuAtStart: number | null = null;
  #timer: NodeJS.Timeout;

  constructor(
    private readonly thread: WatchedThread,
    private readonly onLong: () => void,
  ) {
    this.#timer = setTimeout(() => this.#check(), LONG_CHECK_MS);
  }

  get long(): boolean {
    return this.#long;
  }

  #check(): void {
    // A thread still loading: its start is not the task's CPU, and it sets its own nice value after.
    if (this.thread.ready) {
      const now = cpuMs(this.thread.tid);
      if (now === null) return;
      this.#cpuAtStart ??= now;
      if (now - this.#cpuAtStart >= LONG_TASK_CPU_MS) {
        this.#long = true;
        this.#lowered = renice(this.thread.tid, LONG_TASK_NICENESS);
        this.onLong();
        return;
      }
    }
    this.#timer = setTimeout(() => this.#check(), LONG_CHECK_MS);
  }

  /**
   * The task ended. With the thread living on, it is raised back; false when it stays lowered (raising
   * a nice value needs CAP_SYS_NICE or RLIMIT_NICE, which an unprivileged runner lacks).
   */
  end(threadLives: boolean): { raised: boolean } {
    clearTimeout(this.#timer);
    if (!this.#lowered || !threadLives) return { raised: true };
    return { raised: renice(this.thread.tid, SANDBOX_NICENESS) };
  }
}
