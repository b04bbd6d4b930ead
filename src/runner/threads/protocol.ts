// What the runner's main thread and its sandbox threads say to each other. The thread entry
// (thread-entry.js) is plain JavaScript, so a new thread pays no TypeScript stripping (about 50 ms of
// CPU a thread): what it must agree on with this side comes in its ThreadData, decided here alone.
import type { MessagePort } from 'node:worker_threads';

/** A compiled module as a thread holds it: V8 shares the compiled code between threads and instances. */
export interface ThreadModule {
  sha256: string;
  module: WebAssembly.Module;
  /** The module's memory maximum in 64 KiB pages, also the plugin host's limit for its own blocks. */
  maxPages: number;
}

/**
 * An export's output as it leaves its thread: its bytes, or only its size when it is past the largest
 * answer (kernel.js MAX_OUTPUT_BYTES), so a huge output is never copied.
 */
export type OutputBytes = Uint8Array | { tooLargeBytes: number };

/** Slots of the shared Int32Array, and the values of the phase slot. */
export const SIGNALS = {
  /** Raised when a host answer is on the host port. */
  hostAnswer: 0,
  /** The phase of the current task: the main thread reads it when a start limit passes. */
  phase: 1,
} as const;
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
      transient?: ThreadModule;
    };

export type FromThread =
  /** The thread has loaded and takes tasks at once. */
  | { kind: 'ready' }
  | { kind: 'prepared'; sha256: string; ok: boolean; message?: string }
  | { kind: 'host'; seq: number; name: string; request: string }
  | {
      kind: 'result';
      seq: number;
      /** started: false when the instance never started (start code trapped), a refusal of the module. */
      outcome: 'answered' | 'trapped' | 'start_failed';
      output?: OutputBytes;
      message?: string;
    };

/** A host answer, posted on the host port before the flag is raised. */
export interface HostAnswer {
  seq: number;
  answer: string;
}
