// Inside one sandbox thread: runs one task at a time for the main thread. Every call gets an Extism
// plugin of its own (a WebAssembly instance, a kernel call context and WASI made for it) from a module
// compiled once; the plugin is dropped after the call. Host functions answer synchronously: the request
// goes to the main thread, and this thread waits on a shared flag until the answer is on its port.
//
// Loaded by Node directly (types stripped), so every import here is erasable TypeScript or JavaScript.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import type { CallContext } from '@extism/extism';
import '../quiet-wasi.ts';
import { HOST_FUNCTIONS } from '../../module/imports.ts';
import { REFUSING_BINDING } from '../host/refusal.ts';
import {
  type FromThread,
  type HostAnswer,
  PHASE_IDLE,
  PHASE_RUNNING,
  PHASE_STARTING,
  SIGNAL_HOST_ANSWER,
  SIGNAL_PHASE,
  type ThreadData,
  type ThreadModule,
  type ToThread,
} from './protocol.ts';

// After the warning filter: linking node:wasi (which Extism imports) is what warns.
const { default: createPlugin } = await import('@extism/extism');
type Plugin = Awaited<ReturnType<typeof createPlugin>>;

if (!parentPort) throw new Error('the sandbox thread entry runs in a worker thread only');

/**
 * Module code yields the CPU to the main thread (HTTP, host functions, redaction; in the `all` role also
 * the api and worker): a module that loops until its deadline slows the calls beside it less. Linux
 * sets a nice value per thread (its task id); elsewhere the thread keeps the process's priority.
 */
const SANDBOX_NICENESS = 10;
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), SANDBOX_NICENESS);
} catch {
  // No /proc (not Linux) or not allowed: same priority as the main thread.
}
const port = parentPort;
const { hostPort, signals } = workerData as ThreadData;
const flags = new Int32Array(signals);

/**
 * Who an instance's host functions serve: nobody while its start code runs or while it waits warm
 * (every host function refuses, answered here), then exactly one call (answered by the main thread).
 */
interface Holder {
  seq: number | null;
}

interface Prepared {
  plugin: Plugin;
  holder: Holder;
}

const modules = new Map<string, ThreadModule>();
const warm = new Map<string, Prepared[]>();

const post = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

function refusalOf(name: string): string {
  return JSON.stringify(REFUSING_BINDING[name as keyof typeof REFUSING_BINDING]({}));
}

/** The main thread's answer to one host request; this thread blocks until it is there. */
function askMainThread(seq: number, name: string, request: string): string {
  Atomics.store(flags, SIGNAL_HOST_ANSWER, 0);
  post({ kind: 'host', seq, name, request });
  Atomics.wait(flags, SIGNAL_HOST_ANSWER, 0);
  const received = receiveMessageOnPort(hostPort)?.message as HostAnswer | undefined;
  // Only the answer to this request: anything else cannot belong to the call running here.
  if (!received || received.seq !== seq) return refusalOf(name);
  return received.answer;
}

function hostFunctionsFor(holder: Holder) {
  return Object.fromEntries(
    HOST_FUNCTIONS.map((name) => [
      name,
      (context: CallContext, offset: bigint) => {
        const request = context.read(offset)?.text() ?? 'null';
        const answer = holder.seq === null ? refusalOf(name) : askMainThread(holder.seq, name, request);
        return context.store(answer);
      },
    ]),
  );
}

/** Extism's own logger stays quiet: a module's output never reaches the runner's logs unredacted. */
const silent = new Proxy(console, { get: () => () => {} });

/** A new instance of the module, its start code run with every host function refusing. */
async function instantiate(module: ThreadModule): Promise<Prepared> {
  const holder: Holder = { seq: null };
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

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'the module trapped without a message';
}

async function close(prepared: Prepared): Promise<void> {
  prepared.holder.seq = null;
  await prepared.plugin.close().catch(() => {});
}

async function prepare(sha256: string): Promise<void> {
  const module = modules.get(sha256);
  if (!module) return post({ kind: 'prepared', sha256, ok: false, message: 'module not held' });
  Atomics.store(flags, SIGNAL_PHASE, PHASE_STARTING);
  try {
    const prepared = await instantiate(module);
    const list = warm.get(sha256) ?? [];
    list.push(prepared);
    warm.set(sha256, list);
    post({ kind: 'prepared', sha256, ok: true });
  } catch (error) {
    post({ kind: 'prepared', sha256, ok: false, message: errorText(error) });
  } finally {
    Atomics.store(flags, SIGNAL_PHASE, PHASE_IDLE);
  }
}

async function call(task: Extract<ToThread, { kind: 'call' }>): Promise<void> {
  const { seq } = task;
  let prepared = task.warm ? warm.get(task.sha256)?.shift() : undefined;
  if (!prepared) {
    const module = task.transient ?? modules.get(task.sha256);
    if (!module) return post({ kind: 'result', seq, outcome: 'start_failed', message: 'module not held' });
    Atomics.store(flags, SIGNAL_PHASE, PHASE_STARTING);
    try {
      prepared = await instantiate(module);
    } catch (error) {
      Atomics.store(flags, SIGNAL_PHASE, PHASE_IDLE);
      return post({ kind: 'result', seq, outcome: 'start_failed', message: errorText(error) });
    }
  }
  Atomics.store(flags, SIGNAL_PHASE, PHASE_RUNNING);
  prepared.holder.seq = seq;
  try {
    const output = (await prepared.plugin.call(task.exportName, task.input))?.bytes() ?? new Uint8Array();
    // A copy of the output alone: the plugin's blocks are not transferred with it.
    const copy = output.slice();
    post({ kind: 'result', seq, outcome: 'answered', output: copy }, [copy.buffer]);
  } catch (error) {
    post({ kind: 'result', seq, outcome: 'trapped', message: errorText(error) });
  } finally {
    Atomics.store(flags, SIGNAL_PHASE, PHASE_IDLE);
    await close(prepared);
  }
}

async function discard(sha256: string, count: number): Promise<void> {
  const list = warm.get(sha256) ?? [];
  const dropped = list.splice(0, count);
  if (list.length === 0) warm.delete(sha256);
  await Promise.all(dropped.map(close));
}

port.on('message', (task: ToThread) => {
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
