// What a valid module is (docs/module-contract.md), in the order the api and the runner check it: the bytes
// alone first (checkModuleBytes, pure and cheap, bounded before anything is parsed), the engine's
// validation off the calling thread (inspectModuleBytes), then, once the manifest export has answered,
// the exports it promises (checkExports) and the stored form of the module (prepareModule).
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compileModule } from './compile.ts';
import { checkImports } from './imports.ts';
import { checkInstanceSize } from './instance-size.ts';
import type { Manifest } from './manifest-types.ts';
import { type ModuleRefusal, refuse } from './refusal.ts';
import { capMemory, readModule, sha256Hex, type WasmExport, type WasmImport } from './wasm.ts';

export type { ModuleRefusal, ModuleRefusalCode } from './refusal.ts';

export interface ModuleInspection {
  ok: true;
  imports: WasmImport[];
  exports: WasmExport[];
}

/**
 * Everything the bytes tell without the engine: at most 32 MiB (too_large), the WebAssembly header
 * (not_wasm), well-formed sections, the declared counts and function bodies within their bounds
 * (instance_too_large), only accepted features in every section and every instruction (invalid_module),
 * the import policy (imported_memory, forbidden_import), exactly one memory of its own (invalid_module)
 * exported as `memory` (missing_export), the bounds on tables, globals and segments (table_too_large,
 * instance_too_large) and the manifest and invoke exports (missing_export), so a module without them is
 * never compiled nor run. Pure and synchronous.
 */
export function checkModuleBytes(bytes: Uint8Array): ModuleInspection | ModuleRefusal {
  const read = readModule(bytes);
  if (!read.ok) return read;
  const refused = checkImports(read.imports);
  if (refused) return refused;
  // Several memories are refused while reading (multi-memory is not accepted).
  if (read.memories.length === 0) {
    return refuse('invalid_module', 'module defines no memory; it must define exactly one');
  }
  const unexported = checkMemoryExport(read.exports);
  if (unexported) return unexported;
  const sized = checkInstanceSize(read.instanceSize);
  if (sized) return sized;
  const missing = checkNamedExports(BASE_EXPORTS, read.exports);
  if (missing) return missing;
  return { ok: true, imports: read.imports, exports: read.exports };
}

/**
 * checkModuleBytes, then valid WebAssembly as the engine decides (invalid_module), compiled off the
 * calling thread; the compiled module is handed back for whoever runs it next.
 */
export async function inspectModuleBytes(
  bytes: Uint8Array,
): Promise<(ModuleInspection & { module: WebAssembly.Module }) | ModuleRefusal> {
  const checked = checkModuleBytes(bytes);
  if (!checked.ok) return checked;
  const compiled = await compileModule(bytes);
  if (!compiled.ok) return compiled;
  return { ...checked, module: compiled.module };
}

/**
 * missing_export unless the memory is exported as `memory`: the runner reads an instance's memory (its
 * size against memoryMiB, WASI's buffers) by that name, and a memory not exported cannot be read at all.
 */
export function checkMemoryExport(exports: readonly WasmExport[]): ModuleRefusal | null {
  if (exports.some((e) => e.name === 'memory' && e.kind === 'memory')) return null;
  return refuse(
    'missing_export',
    'module does not export its memory as "memory"; the module must export its memory',
  );
}

/** The exports every module must have, whatever its manifest says (the manifest export is run to read it). */
export const BASE_EXPORTS = ['manifest', 'invoke'] as const;

/** The exports a module must have: manifest and invoke always, the others when the manifest handles them. */
export function requiredExports(manifest: Manifest): string[] {
  return [
    ...BASE_EXPORTS,
    ...(manifest.handles.webhook ? ['handle_webhook'] : []),
    ...(manifest.handles.handoff ? ['handoff'] : []),
  ];
}

/** missing_export unless every named export is there as a function. */
export function checkNamedExports(
  required: readonly string[],
  exports: readonly WasmExport[],
): ModuleRefusal | null {
  // A scan per required name (four at most), rather than a set of every export's name.
  const missing = required.filter((name) => !exports.some((e) => e.name === name && e.kind === 'function'));
  if (missing.length === 0) return null;
  const notFunctions = missing.filter((name) => exports.some((e) => e.name === name));
  const why = notFunctions.length > 0 ? ` (${notFunctions.join(', ')} exported, but not as functions)` : '';
  return refuse(
    'missing_export',
    `module does not export the function${missing.length > 1 ? 's' : ''} ${missing.join(', ')}${why}`,
  );
}

/** missing_export unless every export the manifest requires is there as a function. */
export function checkExports(manifest: Manifest, exports: readonly WasmExport[]): ModuleRefusal | null {
  return checkNamedExports(requiredExports(manifest), exports);
}

export interface PreparedModule {
  ok: true;
  /** The module with memoryMiB written in as its memory maximum: what is stored and run. */
  bytes: Uint8Array;
  /** sha256 of the capped bytes, 64 lower-case hex characters. */
  sha256: string;
  sizeBytes: number;
}

/**
 * The module as the platform stores it, once its manifest has been read: exports checked, memory capped
 * at the manifest's memoryMiB, named by the hash of the capped bytes. Runs the static checks again and
 * has the engine validate the capped bytes (one compile, off the calling thread), so it is safe on bytes
 * that were never inspected.
 */
export async function prepareModule(
  bytes: Uint8Array,
  manifest: Manifest,
): Promise<PreparedModule | ModuleRefusal> {
  const checked = checkModuleBytes(bytes);
  if (!checked.ok) return checked;
  const missing = checkExports(manifest, checked.exports);
  if (missing) return missing;
  // The checks and the cap each read the whole module: apart, the event loop runs between them.
  await nextTurn();
  const capped = capMemory(bytes, manifest.memoryMiB);
  if (!capped.ok) return capped;
  const compiled = await compileModule(capped.bytes);
  if (!compiled.ok) return compiled;
  return { ok: true, bytes: capped.bytes, sha256: sha256Hex(capped.bytes), sizeBytes: capped.bytes.length };
}
