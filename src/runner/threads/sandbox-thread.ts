// One long-lived sandbox thread, seen from the main thread: it runs one task at a time (a call, or the
// preparation of a warm instance), answers the host requests of the call it runs with that call's
// binding, and is terminated when a call passes its deadline or start code passes its limit. The pool
// replaces a thread that ended; nothing of it (port, flags, pending host answers) reaches the new one.
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { START_LIMIT_MS, secondsText } from '../../config/start-limit.ts';
import { MANIFEST_LIMITS } from '../../module/index.ts';
import type { LogLine, Usage } from '../host/call-state.ts';
import { type HostBinding, REFUSALS } from '../host/refusal.ts';
import { HOST_REQUEST_BYTES, MAX_HOST_REQUESTS } from '../host/request-limits.ts';
import type { Redactor } from '../redaction.ts';
import { sandboxEntry } from './bundle.ts';
import {
  type FromThread,
  type HostAnswer,
  PHASES,
  SIGNAL_BYTES,
  SIGNALS,
  type ThreadData,
  type ThreadModule,
  type ToThread,
} from './protocol.ts';
import type { CallReading } from './thread-call.ts';

/** Compiled modules a thread keeps; the least recently used is forgotten beyond. */
export const MODULES_PER_THREAD = 64;

/** The most one call holds outside the JavaScript heap: linear memory and kernel blocks, memoryMiB each. */
const CALL_EXTERNAL_MIB = 2 * MANIFEST_LIMITS.memoryMiB.max;
/** Besides: warm instances (16 MiB each at most) and the garbage of calls not yet collected. */
const THREAD_EXTERNAL_SLACK_MIB = 64;
/**
 * The JavaScript heap of a thread. What a module makes lives in its linear memory and in kernel blocks
 * (both bounded by memoryMiB, outside this heap); the heap holds the thread's own code, the call's
 * envelope and host answers (8 MiB at most, as text). A thread past it is ended, never the process.
 * The old generation's limit is set far above that use on purpose: once memory outside the heap passes
 * half of it, V8 runs a full, memory-reducing collection on every further allocation there (each
 * memory.grow, each kernel block), tens of milliseconds each, with helpers on the process's GC threads
 * at normal priority. At 96 MiB, a module growing its memory to 256 MiB ran hundreds of them a second and
 * halved another tenant's calls (bench/runner.ts, noisy neighbour); half the limit now covers a call at
 * both its caps, so that never happens to a call within its limits.
 */
export const THREAD_HEAP_LIMITS = {
  maxOldGenerationSizeMb: 2 * (CALL_EXTERNAL_MIB + THREAD_EXTERNAL_SLACK_MIB),
  maxYoungGenerationSizeMb: 16,
};
/** Module code yields the CPU to the main thread (HTTP, host functions; in the `all` role the api too). */
const SANDBOX_NICENESS = 10;
/** What every host function answers in a thread while no call is bound to its instance. */
const REFUSAL_TEXTS = Object.fromEntries(
  Object.entries(REFUSALS).map(([name, refusal]) => [name, JSON.stringify(refusal)]),
);

/** A call's end. Its texts were read, redacted and cut on its thread (thread-call.ts). */
export type ExportResult =
  /** answer: JSON text of one of the export's answer shapes. */
  | { kind: 'answered'; answer: string; logs: LogLine[] }
  /** The output was no answer of the export (too large, not JSON, not its shape...). */
  | { kind: 'bad_output'; message: string; logs: LogLine[] }
  | { kind: 'trapped'; message: string }
  /** The instance never ran the export: its start code trapped or ran past its limit. */
  | { kind: 'start_failed'; message: string }
  | { kind: 'timeout' };

export interface CallTask {
  exportName: string;
  input: string;
  deadlineMs: number;
  binding: HostBinding;
  /** How the thread reads the answer, and the secrets and values it redacts. */
  reading: CallReading;
  /** The main thread's redactor of the call: it and the thread's tell each other the values they learn. */
  redactor?: Pick<Redactor, 'receive' | 'takeNew'>;
  /** The call's usage: its log lines are counted on the thread. */
  usage?: Pick<Usage, 'logLines'>;
  /** Take one of the thread's warm instances of the module. */
  warm: boolean;
  /** Send the module with this call only; the thread keeps nothing of it (an upload's inspection). */
  transient?: boolean;
}

type Running =
  | {
      kind: 'call';
      seq: number;
      binding: HostBinding;
      redactor: CallTask['redactor'];
      usage: CallTask['usage'];
      settle: (result: ExportResult) => void;
      timers: NodeJS.Timeout[];
    }
  | { kind: 'prepare'; sha256: string; settle: (ok: boolean) => void; timers: NodeJS.Timeout[] };

export interface ThreadEvents {
  /** The thread finished its task and takes another. */
  idle(thread: SandboxThread): void;
  /** The thread is gone (terminated at a deadline, or it died): replace it. */
  ended(thread: SandboxThread): void;
  /** A host function failed in a way the module only sees as an error answer. */
  error?(error: unknown): void;
}

let nextSeq = 1;
let nextId = 1;

export class SandboxThread {
  readonly id = nextId++;
  /** Warm instances this thread holds, by module. */
  readonly warm = new Map<string, number>();
  readonly #worker: Worker;
  readonly #hostPort: MessagePort;
  readonly #flags: Int32Array;
  /** Modules the thread holds, least recently used first. */
  readonly #held = new Set<string>();
  #running: Running | null = null;
  #ended = false;
  #ready = false;

  constructor(
    private readonly events: ThreadEvents,
    /** How long start code may run (START_LIMIT_MS, or lower: APP_RUNNER_START_LIMIT_MS). */
    private readonly startLimitMs = START_LIMIT_MS,
  ) {
    const { port1, port2 } = new MessageChannel();
    const signals = new SharedArrayBuffer(SIGNAL_BYTES);
    this.#hostPort = port1;
    this.#flags = new Int32Array(signals);
    const data: ThreadData = {
      hostPort: port2,
      signals,
      layout: { signals: SIGNALS, phases: PHASES },
      refusals: REFUSAL_TEXTS,
      hostLimits: { requestBytes: HOST_REQUEST_BYTES, requests: MAX_HOST_REQUESTS },
      niceness: SANDBOX_NICENESS,
    };
    // No inherited flags (a TypeScript loader, a profiler): the entry is the bundle, plain JavaScript.
    this.#worker = new Worker(sandboxEntry(), {
      workerData: data,
      transferList: [port2],
      execArgv: [],
      resourceLimits: THREAD_HEAP_LIMITS,
    });
    this.#worker.unref();
    this.#worker.on('message', (message: FromThread) => this.#received(message));
    this.#worker.on('error', (error) => this.#end(`the sandbox thread failed: ${error.message}`));
    this.#worker.on('exit', () => this.#end('the sandbox thread ended'));
  }

  get idle(): boolean {
    return this.#running === null && !this.#ended;
  }

  /** Loaded: a task sent now starts at once, not after the thread's start (tens of milliseconds). */
  get ready(): boolean {
    return this.#ready;
  }

  get ended(): boolean {
    return this.#ended;
  }

  warmOf(sha256: string): number {
    return this.warm.get(sha256) ?? 0;
  }

  /** Runs one export; the thread must be idle. Warm: one of its warm instances of the module is taken. */
  call(module: ThreadModule, task: CallTask): Promise<ExportResult> {
    this.#claim();
    const seq = nextSeq++;
    if (task.warm) this.#countWarm(module.sha256, -1);
    else if (!task.transient) this.#hold(module);
    return new Promise<ExportResult>((resolve) => {
      const timers = [setTimeout(() => this.#expire(seq, { kind: 'timeout' }), Math.max(0, task.deadlineMs))];
      if (!task.warm && task.deadlineMs > this.startLimitMs)
        timers.push(setTimeout(() => this.#startLimit(seq), this.startLimitMs));
      this.#running = {
        kind: 'call',
        seq,
        binding: task.binding,
        redactor: task.redactor,
        usage: task.usage,
        settle: resolve,
        timers,
      };
      this.#post({
        kind: 'call',
        seq,
        sha256: module.sha256,
        exportName: task.exportName,
        input: task.input,
        warm: task.warm,
        reading: task.reading,
        ...(task.transient ? { transient: module } : {}),
      });
    });
  }

  /**
   * Prepares one warm instance of the module. `done` is told, before the thread counts as idle again,
   * whether it worked: false when the start code failed or ran past its limit (the thread then ended).
   */
  prepare(module: ThreadModule, done: (ok: boolean) => void): void {
    this.#claim();
    this.#hold(module);
    const timers = [
      setTimeout(() => {
        if (this.#running?.kind === 'prepare') this.#terminate('start code ran past its limit');
      }, this.startLimitMs),
    ];
    this.#running = { kind: 'prepare', sha256: module.sha256, settle: done, timers };
    this.#post({ kind: 'prepare', sha256: module.sha256 });
  }

  /** Drops warm instances of a module (idle, or making room for another module's). */
  discard(sha256: string, count: number): void {
    const have = this.warmOf(sha256);
    if (have === 0 || this.#ended) return;
    this.#countWarm(sha256, -Math.min(have, count));
    this.#post({ kind: 'discard', sha256, count });
  }

  async terminate(): Promise<void> {
    this.#end('the runner is closing');
    await this.#worker.terminate();
  }

  #claim(): void {
    if (!this.idle) throw new Error('the sandbox thread is not idle');
  }

  #post(message: ToThread): void {
    this.#worker.postMessage(message);
  }

  #countWarm(sha256: string, delta: number): void {
    const count = this.warmOf(sha256) + delta;
    if (count > 0) this.warm.set(sha256, count);
    else this.warm.delete(sha256);
  }

  /** Sends the module once; keeps at most MODULES_PER_THREAD, forgetting the least recently used. */
  #hold(module: ThreadModule): void {
    if (this.#held.delete(module.sha256)) {
      this.#held.add(module.sha256);
      return;
    }
    this.#post({ kind: 'module', module });
    this.#held.add(module.sha256);
    for (const sha256 of this.#held) {
      if (this.#held.size <= MODULES_PER_THREAD) break;
      this.#held.delete(sha256);
      this.warm.delete(sha256);
      this.#post({ kind: 'forget', sha256 });
    }
  }

  #received(message: FromThread): void {
    const running = this.#running;
    if (message.kind === 'ready') {
      this.#ready = true;
      return;
    }
    if (message.kind === 'host') {
      // A request of any call but the one running reaches no one.
      if (running?.kind === 'call' && running.seq === message.seq) this.#serveHost(running, message);
      return;
    }
    if (message.kind === 'prepared') {
      if (running?.kind !== 'prepare' || running.sha256 !== message.sha256) return;
      if (message.ok) this.#countWarm(message.sha256, 1);
      this.#finish(running, message.ok);
      return;
    }
    if (running?.kind !== 'call' || running.seq !== message.seq) return;
    const { kind: _kind, seq: _seq, outcome, ...read } = message;
    this.#finish(running, { kind: outcome, ...read } as ExportResult);
  }

  #serveHost(running: Extract<Running, { kind: 'call' }>, message: Extract<FromThread, { kind: 'host' }>) {
    const answered = (answer: unknown) => {
      // The call may have ended meanwhile (its deadline): then the answer is dropped here.
      if (this.#running !== running) return;
      const redactions = running.redactor?.takeNew() ?? [];
      const reply: HostAnswer = { seq: running.seq, answer: JSON.stringify(answer ?? null), redactions };
      this.#hostPort.postMessage(reply);
      Atomics.store(this.#flags, SIGNALS.hostAnswer, 1);
      Atomics.notify(this.#flags, SIGNALS.hostAnswer);
    };
    // The request was parsed and bounded on the thread (thread-call.ts): nothing here reads its text.
    running.redactor?.receive(message.redactions);
    const name = message.name;
    const serve = Object.hasOwn(running.binding, name)
      ? running.binding[name as keyof HostBinding]
      : undefined;
    if (!serve) return answered({ error: `${name} is not a host function`, refused: true });
    Promise.resolve()
      .then(() => serve(message.request))
      .then(answered, (error: unknown) => {
        this.events.error?.(error);
        answered({ error: error instanceof Error ? error.message : 'host function failed' });
      });
  }

  /** Settles the running task; the thread is idle again. */
  #finish<T>(running: { settle: (value: T) => void; timers: NodeJS.Timeout[] }, value: T): void {
    for (const timer of running.timers) clearTimeout(timer);
    this.#countLogLines(this.#running);
    this.#running = null;
    running.settle(value);
    if (!this.#ended) this.events.idle(this);
  }

  /** The lines the call logged, from the shared slot: known even when its thread is being terminated. */
  #countLogLines(running: Running | null): void {
    if (running?.kind === 'call' && running.usage)
      running.usage.logLines = Atomics.load(this.#flags, SIGNALS.logLines);
  }

  #expire(seq: number, result: ExportResult): void {
    const running = this.#running;
    if (running?.kind !== 'call' || running.seq !== seq) return;
    this.#terminate('the call passed its deadline', result);
  }

  /** The start limit into a fresh call: a thread still in the instance's start code is ended. */
  #startLimit(seq: number): void {
    if (Atomics.load(this.#flags, SIGNALS.phase) !== PHASES.starting) return;
    this.#expire(seq, {
      kind: 'start_failed',
      message: `its start code ran past ${secondsText(this.startLimitMs)}`,
    });
  }

  /** Ends the thread now; the running task settles with `result` (or as failed). */
  #terminate(reason: string, result?: ExportResult): void {
    this.#end(reason, result);
    void this.#worker.terminate();
  }

  #end(reason: string, result?: ExportResult): void {
    if (this.#ended) return;
    this.#ended = true;
    this.warm.clear();
    const running = this.#running;
    this.#countLogLines(running);
    this.#running = null;
    this.#hostPort.close();
    if (running) {
      for (const timer of running.timers) clearTimeout(timer);
      if (running.kind === 'prepare') running.settle(false);
      else running.settle(result ?? { kind: 'trapped', message: reason });
    }
    this.events.ended(this);
  }
}
