// Inside one sandbox thread: runs one task at a time for the main thread (sandbox-thread.ts). Every call
// gets an instance of its own (instance.js: a WebAssembly instance with a kernel, a WASI and host
// functions made for it) from a module compiled once; the instance is dropped after the call. What the
// module writes is read here (thread-call.ts). Host functions answer synchronously: log, hmac and
// hmac_verify here, the others on the main thread, while this thread waits on a shared flag until the
// answer is on its port. The message shapes are protocol.ts's ToThread, FromThread and HostAnswer.
//
// It runs as one bundle built by bundle.ts (this file with what it imports, TypeScript included), so a
// new thread loads plain JavaScript. What it shares with the main thread comes in workerData.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
// Generated from answer-shapes.ts by bundle.ts, which builds this thread's code.
import * as validators from 'sandbox-answer-validators';
import { giveBack } from './give-back.js';
import { dispose, heldBytes, instantiate, madeBytes, runExport } from './instance.js';
import { ThreadCall } from './thread-call.ts';

if (!parentPort) throw new Error('the sandbox thread entry runs in a worker thread only');
const port = parentPort;
/** @type {import('./protocol.ts').ThreadData} */
const { hostPort, signals, layout, refusals, hostLimits, niceness } = workerData;
const flags = new Int32Array(signals);
const { hostAnswer: HOST_ANSWER, phase: PHASE, logLines: LOG_LINES } = layout.signals;
const PHASES = layout.phases;

try {
  // Linux sets a nice value per thread, by its task id.
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
} catch {
  // No /proc (not Linux) or not allowed: the thread keeps the process's priority.
}

/** Compiled modules by sha256, and warm instances (no call has touched them) by sha256. */
const modules = new Map();
const warm = new Map();

const post = (message, transfer = []) => port.postMessage(message, transfer);

/**
 * The most a warm instance may hold once its start code ran. It waits for a call with no deadline, so
 * start code that grew its memory would keep it while no call pays for it: such a module is not warmed
 * (each call makes its instance).
 */
const WARM_MAX_BYTES = 16 * 1024 * 1024;

/** The call running on this thread (a ThreadCall), null between calls. */
let current = null;

/** Where the main thread reads the call's log lines, even once this thread is gone. */
const logLines = {
  get logLines() {
    return Atomics.load(flags, LOG_LINES);
  },
  set logLines(count) {
    Atomics.store(flags, LOG_LINES, count);
  },
};

/** The main thread's answer to one host request; this thread blocks until it is there. */
function askMainThread(seq, name, request, redactions) {
  Atomics.store(flags, HOST_ANSWER, 0);
  post({ kind: 'host', seq, name, request, redactions });
  Atomics.wait(flags, HOST_ANSWER, 0);
  const received = receiveMessageOnPort(hostPort)?.message;
  // Only the answer to this request: anything else cannot belong to the call running here.
  if (!received || received.seq !== seq) return refusals[name];
  current?.received(received.redactions);
  return received.answer;
}

/** One host request of the running call: answered here, or by the main thread as a bounded value. */
function ask(seq, name, text) {
  if (!current) return refusals[name];
  const served = current.serve(name, text);
  if ('answer' in served) return JSON.stringify(served.answer);
  return askMainThread(seq, name, served.forward, served.redactions);
}

const host = {
  refusals,
  limits: hostLimits.requestBytes,
  maxRequests: hostLimits.requests,
  ask,
};

function errorText(error) {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'the module trapped without a message';
}

/**
 * What failed start code leaves: its text, and what its instance made. Kept apart from the error, whose
 * stack holds the instance until the error itself is unreachable.
 */
function startFailure(error) {
  return { made: error instanceof Error ? (error.madeBytes ?? 0) : 0, message: errorText(error) };
}

function prepare(sha256) {
  const module = modules.get(sha256);
  if (!module) return post({ kind: 'prepared', sha256, ok: false, message: 'module not held' });
  Atomics.store(flags, PHASE, PHASES.starting);
  let failed;
  try {
    let prepared = instantiate(module, host);
    const held = heldBytes(prepared);
    if (held > WARM_MAX_BYTES) {
      const made = madeBytes(prepared);
      prepared = undefined;
      giveBack(made);
      const message = `its start code left ${Math.ceil(held / 1048576)} MiB, more than a warm instance keeps`;
      return post({ kind: 'prepared', sha256, ok: false, message });
    }
    const list = warm.get(sha256) ?? [];
    list.push(prepared);
    warm.set(sha256, list);
    post({ kind: 'prepared', sha256, ok: true });
  } catch (error) {
    failed = startFailure(error);
  } finally {
    Atomics.store(flags, PHASE, PHASES.idle);
  }
  if (failed) {
    giveBack(failed.made);
    post({ kind: 'prepared', sha256, ok: false, message: failed.message });
  }
}

function call(task) {
  logLines.logLines = 0;
  current = new ThreadCall(task.reading, validators, logLines);
  try {
    post({ kind: 'result', seq: task.seq, ...runCall(task, current) });
  } finally {
    current = null;
  }
}

/** The call's outcome as the main thread receives it (thread-call.ts's ReadOutcome). */
function runCall(task, reading) {
  let prepared = task.warm ? warm.get(task.sha256)?.shift() : undefined;
  if (!prepared) {
    const module = task.transient ?? modules.get(task.sha256);
    if (!module) return { outcome: 'start_failed', message: 'module not held' };
    Atomics.store(flags, PHASE, PHASES.starting);
    let failed;
    try {
      prepared = instantiate(module, host);
    } catch (error) {
      failed = startFailure(error);
    } finally {
      Atomics.store(flags, PHASE, PHASES.idle);
    }
    if (failed) {
      giveBack(failed.made);
      return reading.failed('start_failed', failed.message);
    }
  }
  Atomics.store(flags, PHASE, PHASES.running);
  let output;
  let trap;
  try {
    output = runExport(prepared, task.seq, task.exportName, task.input);
  } catch (error) {
    trap = errorText(error);
  } finally {
    Atomics.store(flags, PHASE, PHASES.idle);
  }
  // The instance is ended, what it made freed or collected (the call pays for that), then its output
  // read: still this call's time, and this thread's.
  const made = dispose(prepared);
  prepared = undefined;
  giveBack(made);
  return trap === undefined ? reading.answered(output) : reading.failed('trapped', trap);
}

function discard(sha256, count) {
  const list = warm.get(sha256) ?? [];
  list.splice(0, count);
  if (list.length === 0) warm.delete(sha256);
}

port.on('message', (task) => {
  switch (task.kind) {
    case 'module':
      modules.set(task.module.sha256, task.module);
      return;
    case 'forget':
      modules.delete(task.sha256);
      discard(task.sha256, Number.POSITIVE_INFINITY);
      return;
    case 'discard':
      discard(task.sha256, task.count);
      return;
    case 'prepare':
      prepare(task.sha256);
      return;
    case 'call':
      call(task);
      return;
  }
});

// Told once everything above has loaded: the pool prefers threads that have, over ones still starting.
post({ kind: 'ready' });
