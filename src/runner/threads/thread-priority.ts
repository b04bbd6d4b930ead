// Nice values of single sandbox threads, set from the main thread (Linux sets a nice value per thread,
// by its task id). The pool learns a thread's task id as the one task that appears in /proc/self/task
// across the Worker's constructor (Node creates the OS thread there, synchronously), so the thread itself
// need not report it. Elsewhere (no /proc, or not allowed) every function here does nothing.
import { existsSync, readdirSync } from 'node:fs';
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
