// One module instance in its own worker thread (Extism's background plugin). An instance is prepared
// with every host function refusing, claimed by exactly one call, and discarded after it.
import './quiet-wasi.ts';
import createPlugin, { type CallContext, type Plugin } from '@extism/extism';
import { HOST_FUNCTIONS } from '../module/imports.ts';
import { type HostBinding, REFUSING_BINDING } from './host/refusal.ts';

/** Module start code (instantiation, _initialize) may take at most this long. */
export const START_LIMIT_MS = 5_000;

export interface ExportResult {
  kind: 'answered' | 'trapped' | 'timeout';
  output?: Uint8Array;
  message?: string;
}

export class Instance {
  #binding: HostBinding = REFUSING_BINDING;
  #claimed = false;
  #closed = false;

  private constructor(
    readonly sha256: string,
    private readonly plugin: Plugin,
    readonly preparedAt: number,
  ) {}

  /** Compiles nothing: the caller hands a compiled module, shared by every instance of that hash. */
  /** maxPages: the module's memory maximum in 64 KiB pages, given to the plugin host as its limit too. */
  static async prepare(sha256: string, module: WebAssembly.Module, maxPages: number): Promise<Instance> {
    const holder: { instance?: Instance } = {};
    const functions = Object.fromEntries(
      HOST_FUNCTIONS.map((name) => [
        name,
        async (context: CallContext, offset: bigint) => {
          const binding = holder.instance ? holder.instance.#binding : REFUSING_BINDING;
          let request: unknown = null;
          try {
            request = JSON.parse(context.read(offset)?.text() ?? 'null');
          } catch {
            return context.store(JSON.stringify({ error: 'request is not JSON', refused: true }));
          }
          let answer: unknown;
          try {
            answer = await binding[name](request);
          } catch (error) {
            answer = { error: error instanceof Error ? error.message : 'host function failed' };
          }
          return context.store(JSON.stringify(answer ?? null));
        },
      ]),
    );
    const plugin = await createPlugin(
      { wasm: [{ module }] },
      {
        useWasi: true,
        runInWorker: true,
        enableWasiOutput: false,
        functions: { 'extism:host/user': functions },
        memory: { maxPages },
        // Bounds the start code; calls get their own deadline below.
        timeoutMs: START_LIMIT_MS,
        logger: silentConsole,
      },
    );
    // The instance enforces each call's deadline itself by terminating the thread, so the plugin's
    // own timer (set for the start code) must not cut a longer call short.
    (plugin as unknown as { opts: { timeoutMs: number | null } }).opts.timeoutMs = null;
    const instance = new Instance(sha256, plugin, Date.now());
    holder.instance = instance;
    return instance;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Binds the instance to one call; an instance is claimed once. */
  claim(binding: HostBinding): void {
    if (this.#claimed) throw new Error('instance already claimed');
    this.#claimed = true;
    this.#binding = binding;
  }

  /** Runs one export within the deadline; past it the worker thread is terminated. */
  async run(exportName: string, input: string, deadlineMs: number): Promise<ExportResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<ExportResult>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout' }), Math.max(0, deadlineMs));
    });
    const called = this.plugin.call(exportName, input).then(
      (output): ExportResult => ({ kind: 'answered', output: output?.bytes() ?? new Uint8Array() }),
      (error: unknown): ExportResult => ({ kind: 'trapped', message: trapMessage(error) }),
    );
    try {
      return await Promise.race([called, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#binding = REFUSING_BINDING;
    await this.plugin.close();
  }

  /**
   * Closes the instance without holding the caller back: the thread's termination is requested at once
   * (the module stops running and its host functions refuse from here on), while Node tears the thread
   * down in the background. A call's answer need not wait for that (about 2 ms a call).
   */
  discard(onError?: (error: unknown) => void): void {
    this.close().catch((error: unknown) => onError?.(error));
  }
}

/**
 * The text of a trap. The plugin's worker thread posts a trap back as a plain { message, originalStack }
 * object, not an Error, so String() would give "[object Object]".
 */
export function trapMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null) {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
  }
  return typeof error === 'string' ? error : 'the module trapped without a message';
}

const noop = () => {};
/** Extism's own logger stays quiet: a module's output never reaches the runner's logs unredacted. */
const silentConsole = {
  ...console,
  log: noop,
  info: noop,
  warn: noop,
  error: noop,
  debug: noop,
  trace: noop,
} as Console;
