// What the runner's main thread and its sandbox threads say to each other. The thread's code is a bundle
// of its own (bundle.ts): what it must agree on with this side comes in its ThreadData, decided here alone.
import type { MessagePort } from 'node:worker_threads';
import type { RedactionEntry } from '../redaction.ts';
import type { CallReading, ReadOutcome } from './thread-call.ts';

/** A compiled module as a thread holds it: V8 shares the compiled code between threads and instances. */
export interface ThreadModule {
  sha256: string;
  module: WebAssembly.Module;
  /** The module's memory maximum in 64 KiB pages, also the plugin host's limit for its own blocks. */
  maxPages: number;
}

/** Slots of the shared Int32Array, and the values of the phase slot. */
export const SIGNALS = {
  /** Raised when a host answer is on the host port. */
  hostAnswer: 0,
  /** The phase of the current task: the main thread reads it when a start limit passes. */
  phase: 1,
  /** The running call's log lines so far: its usage, read even when the call passed its deadline. */
  logLines: 2,
} as const;
/** Bytes of the shared Int32Array. */
export const SIGNAL_BYTES = 4 * Object.keys(SIGNALS).length;
export const PHASES = { idle: 0, starting: 1, running: 2 } as const;

/** Given to a thread when it starts. */
export interface ThreadData {
  /** Where the main thread posts host function answers; the thread reads it while it waits. */
  hostPort: MessagePort;
  /** Int32Array over a SharedArrayBuffer, laid out as `signals` says. */
  signals: SharedArrayBuffer;
  layout: { signals: typeof SIGNALS; phases: typeof PHASES };
  /** Host function name → the JSON it answers while no call is bound (start code, warm instances). */
  refusals: Record<string, string>;
  /** The bounds the thread applies before a request reaches the main thread. */
  hostLimits: { requestBytes: Record<string, number>; requests: number };
  /** The thread's nice value (Linux): module code yields the CPU to the main thread. */
  niceness: number;
}

export type ToThread =
  /** Keep this compiled module for later calls. */
  | { kind: 'module'; module: ThreadModule }
  /** Drop the module and its warm instances. */
  | { kind: 'forget'; sha256: string }
  /** Prepare one warm instance of a module the thread holds (start code run, host functions refusing). */
  | { kind: 'prepare'; sha256: string }
  /** Discard this many of the module's warm instances. */
  | { kind: 'discard'; sha256: string; count: number }
  /**
   * Run one export. warm: take one of the module's warm instances (the main thread knows one is there);
   * otherwise make an instance for this call. transient: the module travels with the call and is not
   * kept (an upload's inspection).
   */
  | {
      kind: 'call';
      seq: number;
      sha256: string;
      exportName: string;
      input: string;
      warm: boolean;
      /** How the thread reads the answer and answers log and hmac: thread-call.ts. */
      reading: CallReading;
      transient?: ThreadModule;
    };

export type FromThread =
  /** The thread has loaded and takes tasks at once. */
  | { kind: 'ready' }
  | { kind: 'prepared'; sha256: string; ok: boolean; message?: string }
  /** A request for a main thread host function, parsed and bounded on the thread (thread-call.ts). */
  | { kind: 'host'; seq: number; name: string; request: unknown; redactions: RedactionEntry[] }
  /**
   * The call's outcome, read on the thread: the answer as JSON text, redacted and checked against its
   * shape; or why it is bad; or the redacted text of a trap or of start code that failed.
   */
  | ({ kind: 'result'; seq: number } & ReadOutcome);

/** A host answer, posted on the host port before the flag is raised. */
export interface HostAnswer {
  seq: number;
  answer: string;
  /** Values the main thread registered since its last answer, for the thread's redactor. */
  redactions: RedactionEntry[];
}
