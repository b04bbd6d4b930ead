// The import policy (docs/module-contract.md "A valid module"): what a module may ask its host for. Pure.
import { type ModuleRefusal, refuse } from './refusal.ts';
import type { WasmImport } from './wasm.ts';

/** The platform's host functions, in the Extism plugin host's user namespace. */
export const HOST_NAMESPACE = 'extism:host/user';
export const HOST_FUNCTIONS = [
  'http_request',
  'hmac',
  'hmac_verify',
  'document_read',
  'log',
  'cache',
  'ai',
] as const;
export type HostFunctionName = (typeof HOST_FUNCTIONS)[number];

/** The Extism kernel (input, output, memory of the plugin host): the plugin host supplies all of it. */
export const KERNEL_NAMESPACE = 'extism:host/env';
export const WASI_NAMESPACE = 'wasi_snapshot_preview1';

const hostFunctions: ReadonlySet<string> = new Set(HOST_FUNCTIONS);

/**
 * Why one import is not allowed, or null when it is. WASI preview 1 is allowed for what toolchains link
 * by default (clocks, random, fd_write to stdout...); its sockets and paths would reach outside the
 * sandbox, so those functions are refused even though the host would not grant them.
 */
function forbiddenBecause(entry: WasmImport): string | null {
  switch (entry.module) {
    case HOST_NAMESPACE:
      if (entry.kind !== 'function') return `${HOST_NAMESPACE} provides only functions`;
      return hostFunctions.has(entry.name) ? null : `${entry.name} is not a host function of this platform`;
    case KERNEL_NAMESPACE:
      return null;
    case WASI_NAMESPACE:
      if (entry.kind !== 'function') return 'WASI provides only functions';
      if (entry.name.startsWith('sock_')) return 'WASI sockets are not available';
      if (entry.name.startsWith('path_')) return 'WASI file system paths are not available';
      return null;
    default:
      return `namespace ${entry.module} is not provided`;
  }
}

const describe = (entry: WasmImport) => `${entry.kind} ${JSON.stringify(`${entry.module}.${entry.name}`)}`;

/**
 * Refuses a module asking for memory from outside (imported_memory: memoryMiB could not be written into
 * it) or for anything the host does not provide (forbidden_import, naming the first such import and how
 * many more there are). Memory is judged first, whatever namespace it comes from.
 */
export function checkImports(imports: readonly WasmImport[]): ModuleRefusal | null {
  const memory = imports.find((entry) => entry.kind === 'memory');
  if (memory) {
    return refuse('imported_memory', `module imports memory ${describe(memory)}; it must define its own`);
  }
  const forbidden = imports.flatMap((entry) => {
    const reason = forbiddenBecause(entry);
    return reason === null ? [] : [{ entry, reason }];
  });
  const [first] = forbidden;
  if (!first) return null;
  const more = forbidden.length > 1 ? ` (and ${forbidden.length - 1} more forbidden imports)` : '';
  return refuse('forbidden_import', `forbidden import ${describe(first.entry)}: ${first.reason}${more}`);
}
