// What a valid module is (spec part 1 §2.14), in the order the api and the runner check it: the bytes
// alone first (inspectModuleBytes), then, once the manifest export has answered, the exports it promises
// (checkExports) and the stored form of the module (prepareModule). Pure.
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
 * Everything that can be known without running the module: at most 32 MiB (too_large), the WebAssembly
 * header (not_wasm), valid WebAssembly with well-formed sections (invalid_module), the import policy
 * (imported_memory, forbidden_import), exactly one memory of its own (invalid_module), the bounds on tables,
 * globals and segments (table_too_large, instance_too_large) and the manifest and
 * invoke exports (missing_export), so a module without them is never run.
 */
export function inspectModuleBytes(bytes: Uint8Array): ModuleInspection | ModuleRefusal {
  const read = readModule(bytes);
  if (!read.ok) return read;
  const refused = checkImports(read.imports);
  if (refused) return refused;
  if (read.memories.length !== 1) {
    return refuse(
      'invalid_module',
      read.memories.length === 0
        ? 'module defines no memory; it must define exactly one'
        : `module defines ${read.memories.length} memories; it must define exactly one`,
    );
  }
  const sized = checkInstanceSize(read.instanceSize);
  if (sized) return sized;
  const missing = checkNamedExports(BASE_EXPORTS, read.exports);
  if (missing) return missing;
  return { ok: true, imports: read.imports, exports: read.exports };
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
  const functions = new Set(exports.filter((e) => e.kind === 'function').map((e) => e.name));
  const missing = required.filter((name) => !functions.has(name));
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
 * at the manifest's memoryMiB, named by the hash of the capped bytes. Runs the static checks again, so it
 * is safe on bytes that were never inspected.
 */
export function prepareModule(bytes: Uint8Array, manifest: Manifest): PreparedModule | ModuleRefusal {
  const inspected = inspectModuleBytes(bytes);
  if (!inspected.ok) return inspected;
  const missing = checkExports(manifest, inspected.exports);
  if (missing) return missing;
  const capped = capMemory(bytes, manifest.memoryMiB);
  if (!capped.ok) return capped;
  return { ok: true, bytes: capped.bytes, sha256: sha256Hex(capped.bytes), sizeBytes: capped.bytes.length };
}
