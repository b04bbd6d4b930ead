// Memory a call made stays in its thread until V8 collects it, and a thread waiting for its next task
// allocates nothing that would make V8 collect: four calls growing their memory to 256 MiB, kept nowhere
// warm, left the process 2.2 GiB larger 25 s later. So after an instance that may have left more than
// GIVE_BACK_BYTES (its linear memory, and every kernel block and variable it was ever charged, freed ones
// included), its thread runs a full collection before it answers: linear memories and blocks are freed
// then and their pages go back to the system. The call that made the memory pays for it (tens of ms);
// the next call on the thread does not wait behind it. Replacing the thread would also give it back, but
// costs a thread start and drops the thread's compiled modules and warm instances.
//
// Plain JavaScript, loaded by the sandbox thread (thread-entry.js).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Past this much made by one instance, its thread collects once it is done with it. */
export const GIVE_BACK_BYTES = 32 * 1024 * 1024;

let collect = null;

/**
 * V8's gc(), from a context of this thread. Node refuses --expose-gc in a thread's execArgv, so the flag
 * is set at run time. It is not unset after: V8's flags are the process's, and threads doing this at once
 * would unset it under each other. Contexts made later get a gc global too; no module code reaches one.
 */
function collector() {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc');
  }
  return collect;
}

/** A full collection when an instance no longer referenced may have left more than GIVE_BACK_BYTES. */
export function giveBack(madeBytes) {
  if (madeBytes <= GIVE_BACK_BYTES) return;
  try {
    collector()();
  } catch {
    // No collector: the memory waits for V8's own collection, as before; the thread answers all the same.
  }
}
