// The engine's own check of a module. WebAssembly.compile decodes, validates and compiles on V8's
// background threads and resolves on the calling thread's event loop; new WebAssembly.Module and
// WebAssembly.validate do all of it on the calling thread (3.5 s of the runner's main thread for a module
// of 1,000,000 exports). Call it after the pure checks of wasm.ts, which bound what the engine is given:
// the part V8 still does on the calling thread grows with the number of functions (bench/module-compile.ts).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type ModuleRefusal, refuse } from './refusal.ts';

export async function compileModule(
  bytes: Uint8Array,
): Promise<{ ok: true; module: WebAssembly.Module } | ModuleRefusal> {
  // The callers have just read the whole module synchronously; the engine's own start (it copies the
  // bytes) runs in a turn of its own.
  await nextTurn();
  try {
    return { ok: true, module: await WebAssembly.compile(bytes) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return refuse('invalid_module', `not valid WebAssembly: ${reason}`);
  }
}
