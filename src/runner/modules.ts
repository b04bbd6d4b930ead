// Modules by sha256: compiled once per process, kept on disk in the cache directory, fetched from the
// api's internal listener (GET /internal/app-modules/:sha256, runner bearer) and verified by hash.
import fs from 'node:fs/promises';
import {
  checkImports,
  checkInstanceSize,
  checkMemoryExport,
  readModule,
  sha256Hex,
} from '../module/index.ts';
import { FilesystemModuleStorage } from '../storage/module-storage.ts';
import { RunnerFailure } from './errors.ts';

export interface LoadedModule {
  sha256: string;
  module: WebAssembly.Module;
  /** The memory maximum the platform wrote into the module, in 64 KiB pages. */
  maxPages: number;
}

export interface ModuleStoreOptions {
  cacheDir: string;
  apiInternalUrl: string;
  runnerToken: string;
  /** Compiled modules kept in memory. */
  maxCompiled?: number;
  fetch?: typeof fetch;
}

const SHA256 = /^[0-9a-f]{64}$/;

const exportsByModule = new WeakMap<WebAssembly.Module, ReadonlySet<string>>();

const functionNames = (exports: readonly { name: string; kind: string }[]): ReadonlySet<string> =>
  new Set(exports.filter((e) => e.kind === 'function').map((e) => e.name));

/**
 * The function exports of a compiled module, kept once per module: a call checks the export it needs
 * without asking the instance's worker thread (a round trip per call). The store fills it from the bytes
 * it read; a module compiled elsewhere is asked of the engine once.
 */
export function functionExports(module: WebAssembly.Module): ReadonlySet<string> {
  let names = exportsByModule.get(module);
  if (!names) {
    names = functionNames(WebAssembly.Module.exports(module));
    exportsByModule.set(module, names);
  }
  return names;
}

/** A module without a maximum (never one the platform stored) gets the manifest default of 64 MiB. */
const DEFAULT_MAX_PAGES = 64 * 16;

export class ModuleStore {
  readonly #compiled = new Map<string, Promise<LoadedModule>>();
  readonly #disk: FilesystemModuleStorage;
  constructor(private readonly options: ModuleStoreOptions) {
    this.#disk = new FilesystemModuleStorage(options.cacheDir);
  }

  get(sha256: string): Promise<LoadedModule> {
    if (!SHA256.test(sha256))
      return Promise.reject(new RunnerFailure('bad_request', 'module sha256 must be 64 hex characters'));
    let loading = this.#compiled.get(sha256);
    if (!loading) {
      loading = this.#load(sha256);
      // A failed load is forgotten so the next call tries again.
      loading.catch(() => this.#compiled.delete(sha256));
      this.#compiled.set(sha256, loading);
      this.#evict();
    } else {
      // Most recently used last.
      this.#compiled.delete(sha256);
      this.#compiled.set(sha256, loading);
    }
    return loading;
  }

  /** Modules on disk. */
  async cachedCount(): Promise<number> {
    try {
      return (await fs.readdir(this.options.cacheDir)).filter((name) => name.endsWith('.wasm')).length;
    } catch {
      return 0;
    }
  }

  async #load(sha256: string): Promise<LoadedModule> {
    const bytes = (await this.#fromDisk(sha256)) ?? (await this.#fetch(sha256));
    // The upload's checks again, from the bytes and before compiling: a module stored before a bound or a
    // refused feature existed is not run, and an oversized one never reaches the engine.
    const facts = readModule(bytes);
    if (!facts.ok) throw new RunnerFailure('invalid_module', facts.message);
    const refused =
      checkImports(facts.imports) ??
      checkMemoryExport(facts.exports) ??
      checkInstanceSize(facts.instanceSize);
    if (refused) throw new RunnerFailure('invalid_module', refused.message);
    let module: WebAssembly.Module;
    try {
      module = await WebAssembly.compile(bytes);
    } catch {
      throw new RunnerFailure('invalid_module', 'the module does not compile');
    }
    const maxPages = facts.memories[0]?.maxPages ?? DEFAULT_MAX_PAGES;
    exportsByModule.set(module, functionNames(facts.exports));
    return { sha256, module, maxPages };
  }

  /** The disk copy when it still matches its hash; a corrupted copy is fetched again and replaced. */
  async #fromDisk(sha256: string): Promise<Uint8Array | null> {
    const bytes = await this.#disk.get(sha256).catch(() => null);
    return bytes && sha256Hex(bytes) === sha256 ? bytes : null;
  }

  async #fetch(sha256: string): Promise<Uint8Array> {
    const url = `${this.options.apiInternalUrl}/internal/app-modules/${sha256}`;
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(url, {
        headers: { authorization: `Bearer ${this.options.runnerToken}` },
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw new RunnerFailure('module_unavailable', 'the module could not be fetched');
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw new RunnerFailure('module_not_found', 'no published module of that hash, or blocked');
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new RunnerFailure('module_unavailable', `the module could not be fetched (${response.status})`);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (sha256Hex(bytes) !== sha256)
      throw new RunnerFailure('module_unavailable', 'the fetched module does not match its hash');
    await this.#disk.put(bytes); // stored under its hash, written atomically
    return bytes;
  }

  #evict(): void {
    const max = this.options.maxCompiled ?? 64;
    while (this.#compiled.size > max) {
      const oldest = this.#compiled.keys().next().value as string;
      this.#compiled.delete(oldest);
    }
  }
}
