// Inside one sandbox thread: runs one task at a time for the main thread (sandbox-thread.ts). Every call
// gets an Extism plugin of its own (a WebAssembly instance, a kernel call context and WASI made for it)
// from a module compiled once; the plugin is dropped after the call. Host functions answer
// synchronously: the request goes to the main thread, and this thread waits on a shared flag until the
// answer is on its port. The message shapes are protocol.ts's ToThread, FromThread and HostAnswer.
//
// Plain JavaScript, on purpose: a thread that loaded TypeScript would pay Node's type stripping (about
// 50 ms of CPU) each time a thread is replaced. What it shares with the main thread comes in workerData.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import '../quiet-wasi.js';

// After the warning filter: linking node:wasi (which Extism imports) is what warns.
const { default: createPlugin } = await import('@extism/extism');

if (!parentPort) throw new Error('the sandbox thread entry runs in a worker thread only');
const port = parentPort;
/** @type {import('./protocol.ts').ThreadData} */
const { hostPort, signals, layout, refusals, niceness } = workerData;
const flags = new Int32Array(signals);
const { hostAnswer: HOST_ANSWER, phase: PHASE } = layout.signals;
const PHASES = layout.phases;

try {
  // Linux sets a nice value per thread, by its task id.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
} catch {
  // No /proc (not Linux) or not allowed: the thread keeps the process's priority.
}

/** Compiled modules by sha256, and warm instances (plugins no call has touched) by sha256. */
const modules = new Map();
const warm = new Map();

const post = (message, transfer = []) => port.postMessage(message, transfer);

/** The main thread's answer to one host request; this thread blocks until it is there. */
function askMainThread(seq, name, request) {
  Atomics.store(flags, HOST_ANSWER, 0);
  post({ kind: 'host', seq, name, request });
  Atomics.wait(flags, HOST_ANSWER, 0);
  const received = receiveMessageOnPort(hostPort)?.message;
  // Only the answer to this request: anything else cannot belong to the call running here.
  if (!received || received.seq !== seq) return refusals[name];
  return received.answer;
}

/**
 * The host functions of one instance. holder.seq is null while its start code runs or while it waits
 * warm (every host function refuses, answered here), then the one call it serves.
 */
function hostFunctionsFor(holder) {
  return Object.fromEntries(
    Object.keys(refusals).map((name) => [
      name,
      (context, offset) => {
        const request = context.read(offset)?.text() ?? 'null';
        const answer = holder.seq === null ? refusals[name] : askMainThread(holder.seq, name, request);
        return context.store(answer);
      },
    ]),
  );
}

const noop = () => {};
/** Extism's own logger stays quiet: a module's output never reaches the runner's logs unredacted. */
const silent = { ...console, log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop };

/** A new instance of the module, its start code run with every host function refusing. */
async function instantiate(module) {
  const holder = { seq: null };
  const plugin = await createPlugin(
    { wasm: [{ module: module.module }] },
    {
      useWasi: true,
      enableWasiOutput: false,
      functions: { 'extism:host/user': hostFunctionsFor(holder) },
      memory: { maxPages: module.maxPages },
      logger: silent,
    },
  );
  return { plugin, holder };
}

function errorText(error) {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'the module trapped without a message';
}

async function close(prepared) {
  prepared.holder.seq = null;
  await prepared.plugin.close().catch(noop);
}

async function prepare(sha256) {
  const module = modules.get(sha256);
  if (!module) return post({ kind: 'prepared', sha256, ok: false, message: 'module not held' });
  Atomics.store(flags, PHASE, PHASES.starting);
  try {
    const prepared = await instantiate(module);
    const list = warm.get(sha256) ?? [];
    list.push(prepared);
    warm.set(sha256, list);
    post({ kind: 'prepared', sha256, ok: true });
  } catch (error) {
    post({ kind: 'prepared', sha256, ok: false, message: errorText(error) });
  } finally {
    Atomics.store(flags, PHASE, PHASES.idle);
  }
}

async function call(task) {
  const { seq } = task;
  let prepared = task.warm ? warm.get(task.sha256)?.shift() : undefined;
  if (!prepared) {
    const module = task.transient ?? modules.get(task.sha256);
    if (!module) return post({ kind: 'result', seq, outcome: 'start_failed', message: 'module not held' });
    Atomics.store(flags, PHASE, PHASES.starting);
    try {
      prepared = await instantiate(module);
    } catch (error) {
      Atomics.store(flags, PHASE, PHASES.idle);
      return post({ kind: 'result', seq, outcome: 'start_failed', message: errorText(error) });
    }
  }
  Atomics.store(flags, PHASE, PHASES.running);
  prepared.holder.seq = seq;
  try {
    const output = (await prepared.plugin.call(task.exportName, task.input))?.bytes() ?? new Uint8Array();
    // A copy of the output alone: the plugin's blocks are not transferred with it.
    const copy = output.slice();
    post({ kind: 'result', seq, outcome: 'answered', output: copy }, [copy.buffer]);
  } catch (error) {
    post({ kind: 'result', seq, outcome: 'trapped', message: errorText(error) });
  } finally {
    Atomics.store(flags, PHASE, PHASES.idle);
    await close(prepared);
  }
}

async function discard(sha256, count) {
  const list = warm.get(sha256) ?? [];
  const dropped = list.splice(0, count);
  if (list.length === 0) warm.delete(sha256);
  await Promise.all(dropped.map(close));
}

port.on('message', (task) => {
  switch (task.kind) {
    case 'module':
      modules.set(task.module.sha256, task.module);
      return;
    case 'forget':
      modules.delete(task.sha256);
      void discard(task.sha256, Number.POSITIVE_INFINITY);
      return;
    case 'discard':
      void discard(task.sha256, task.count);
      return;
    case 'prepare':
      void prepare(task.sha256);
      return;
    case 'call':
      void call(task);
      return;
  }
});

// Told once everything above has loaded: the pool prefers threads that have, over ones still starting.
post({ kind: 'ready' });
