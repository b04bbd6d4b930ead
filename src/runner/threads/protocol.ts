// What the runner's main thread and its sandbox threads say to each other. The thread entry loads this
// file natively (Node strips the types), so it holds erasable TypeScript only: types and constants.
import type { MessagePort } from 'node:worker_threads';

/** A compiled module as a thread holds it: V8 shares the compiled code between threads and instances. */
export interface ThreadModule {
  sha256: string;
  module: WebAssembly.Module;
  /** The module's memory maximum in 64 KiB pages, also the plugin host's limit for its own blocks. */
  maxPages: number;
}

/** Given to a thread when it starts. */
export interface ThreadData {
  /** Where the main thread posts host function answers; the thread reads it while it waits. */
  hostPort: MessagePort;
  /** Int32Array over a SharedArrayBuffer: [0] the host answer flag, [1] the phase of the current task. */
  signals: SharedArrayBuffer;
}

export const SIGNAL_HOST_ANSWER = 0;
export const SIGNAL_PHASE = 1;
/** The phase word: the main thread reads it when a start limit passes (no message needed per call). */
export const PHASE_IDLE = 0;
export const PHASE_STARTING = 1;
export const PHASE_RUNNING = 2;

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
  | { kind: 'prepared'; sha256: string; ok: boolean; message?: string }
  | { kind: 'host'; seq: number; name: string; request: string }
  | {
      kind: 'result';
      seq: number;
      /** started: false when the instance never started (start code trapped), a refusal of the module. */
      outcome: 'answered' | 'trapped' | 'start_failed';
      output?: Uint8Array;
      message?: string;
    };

/** A host answer, posted on the host port before the flag is raised. */
export interface HostAnswer {
  seq: number;
  answer: string;
}
