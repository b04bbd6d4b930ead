// One sandbox instance: a WebAssembly instance of a compiled module, linked to a kernel, a WASI and host
// functions made for it alone, with its start code run. Nothing here is shared between instances but
// the compiled module. Plain JavaScript, loaded by the sandbox thread (thread-entry.js).
import { randomFillSync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createKernel, KernelLimit } from './kernel.js';
import { createWasi } from './wasi.js';

export const HOST_NAMESPACE = 'extism:host/user';
const KERNEL_NAMESPACE = 'extism:host/env';
const WASI_NAMESPACE = 'wasi_snapshot_preview1';
const PAGE_BYTES = 65_536;

/**
 * The exports run as start code, in order, as the Extism SDK ran them: with WASI, _initialize (a
 * reactor's set-up; a command's _start is not run), then hs_init; without WASI, hs_init, else
 * _initialize, else _start. Pure.
 */
export function startCodeOf(exportNames, usesWasi) {
  const has = (name) => exportNames.includes(name);
  if (usesWasi) return ['_initialize', 'hs_init'].filter(has);
  return [['hs_init', '_initialize', '_start'].find(has)].filter((name) => name !== undefined);
}

/** What a thread learns of a module once: its start code. */
const startCodes = new WeakMap();
function startCodeFor(compiled) {
  let names = startCodes.get(compiled);
  if (!names) {
    const exported = WebAssembly.Module.exports(compiled)
      .filter((entry) => entry.kind === 'function')
      .map((entry) => entry.name);
    const usesWasi = WebAssembly.Module.imports(compiled).some((entry) => entry.module === WASI_NAMESPACE);
    names = startCodeOf(exported, usesWasi);
    startCodes.set(compiled, names);
  }
  return names;
}

/** The name a module exports its memory under, or null; looked up once per compiled module. */
const memoryNames = new WeakMap();
function memoryNameOf(compiled) {
  let name = memoryNames.get(compiled);
  if (name === undefined) {
    name = WebAssembly.Module.exports(compiled).find((entry) => entry.kind === 'memory')?.name ?? null;
    memoryNames.set(compiled, name);
  }
  return name;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** A wait that ending the thread interrupts (a native sleep would outlive it). */
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);
const clock = {
  realtimeNs: () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)),
  monotonicNs: () => process.hrtime.bigint(),
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A new instance of the module, its start code run while no call is bound (host functions refuse).
 * host: { refusals: name → JSON, limits: name → most request bytes, maxRequests, ask(seq, name, text) }.
 */
export function instantiate(module, host) {
  /** seq: the call the instance serves, null while its start code runs or it waits warm. */
  const holder = { seq: null, requests: 0 };
  const kernel = createKernel({ budgetBytes: module.maxPages * PAGE_BYTES });
  const memoryName = memoryNameOf(module.module);
  let instance;
  // The module's one memory, whatever its export name (`memory` by convention only).
  const memory = () => {
    const exported = memoryName === null ? undefined : instance?.exports[memoryName];
    return exported instanceof WebAssembly.Memory ? exported : undefined;
  };
  // No prototypes: a module importing `constructor`, `toString`… (any namespace) finds nothing to link.
  const imports = Object.assign(Object.create(null), {
    [KERNEL_NAMESPACE]: kernel.imports,
    [HOST_NAMESPACE]: Object.assign(Object.create(null), hostFunctions(holder, kernel, host)),
    [WASI_NAMESPACE]: Object.assign(
      Object.create(null),
      createWasi({ memory, clock, randomFill: randomFillSync, sleep }),
    ),
  });
  instance = new WebAssembly.Instance(module.module, imports);
  const prepared = { instance, kernel, holder, memory, maxBytes: module.maxPages * PAGE_BYTES };
  try {
    for (const name of startCodeFor(module.module)) instance.exports[name]();
  } catch (error) {
    // What the failed start code made, for its thread to give back (give-back.js).
    if (error instanceof Error) error.madeBytes = madeBytes(prepared);
    throw error;
  }
  return prepared;
}

/**
 * Linear memory now: a memory not exported cannot be read, so it counts as grown to its maximum (such
 * modules are refused at upload).
 */
function memoryBytes(prepared) {
  const memory = prepared.memory();
  return memory ? memory.buffer.byteLength : prepared.maxBytes;
}

/** What an instance holds now: its linear memory and its kernel's blocks and variables, in bytes. */
export function heldBytes(prepared) {
  return memoryBytes(prepared) + prepared.kernel.usedBytes();
}

/** What an instance may have left in its thread's heap: its linear memory and all its kernel ever held. */
export function madeBytes(prepared) {
  return memoryBytes(prepared) + prepared.kernel.chargedBytes();
}

/**
 * Ends a finished instance: its kernel's blocks and variables are freed at once; answers what is left for a
 * collection to free (its linear memory, and the blocks it freed during the call).
 */
export function dispose(prepared) {
  return memoryBytes(prepared) + prepared.kernel.dispose();
}

/** Runs one export of a prepared instance for call `seq`: its output bytes, or throws what it trapped with. */
export function runExport(prepared, seq, exportName, input) {
  const run = prepared.instance.exports[exportName];
  if (typeof run !== 'function') throw new Error(`the module does not export the function ${exportName}`);
  prepared.kernel.begin(encoder.encode(input));
  prepared.holder.seq = seq;
  try {
    run();
  } finally {
    prepared.holder.seq = null;
  }
  const outcome = prepared.kernel.outcome();
  if ('error' in outcome) throw new Error(`Plugin-originated error: ${outcome.error}`);
  if ('outputTooLarge' in outcome) return { tooLargeBytes: outcome.outputTooLarge };
  return outcome.output;
}

/**
 * The platform's host functions of one instance. A request is read from the module's block only when it
 * is within its function's bound (a larger one is refused here, never copied or sent on), and only up
 * to maxRequests a call; the answer is written into a new block, which counts against the memory limit.
 */
function hostFunctions(holder, kernel, host) {
  const answer = (name, text) => {
    const bytes = encoder.encode(text);
    const address = kernel.store(bytes);
    if (address === 0n) {
      throw new KernelLimit(
        `the answer of ${name} (${bytes.byteLength} bytes) does not fit in the memory limit`,
      );
    }
    return address;
  };
  const refused = (name, error) => answer(name, JSON.stringify({ error, refused: true }));
  return Object.fromEntries(
    Object.keys(host.refusals).map((name) => [
      name,
      (offset) => {
        if (holder.seq === null) return answer(name, host.refusals[name]);
        holder.requests += 1;
        if (holder.requests > host.maxRequests)
          return refused(name, `${name}: at most ${host.maxRequests} host function requests a call`);
        const limit = host.limits[name];
        const request = kernel.read(offset, limit);
        if (request === 'large') return refused(name, `${name}: the request is larger than ${limit} bytes`);
        const text = request === null ? 'null' : decoder.decode(request);
        return answer(name, host.ask(holder.seq, name, text));
      },
    ]),
  );
}
