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

/** The Extism kernel (input, output, memory of the plugin host): the platform's own, kernel.js. */
export const KERNEL_NAMESPACE = 'extism:host/env';
export const KERNEL_FUNCTIONS = [
  'alloc',
  'free',
  'length',
  'length_unsafe',
  'load_u8',
  'load_u64',
  'store_u8',
  'store_u64',
  'input_offset',
  'input_length',
  'input_load_u8',
  'input_load_u64',
  'output_set',
  'error_set',
  'error_get',
  'config_get',
  'var_get',
  'var_set',
  'http_request',
  'http_status_code',
  'http_headers',
  'log_warn',
  'log_info',
  'log_debug',
  'log_error',
  'log_trace',
  'get_log_level',
] as const;

/** WASI preview 1, as wasi.js serves it: every function but sockets and paths. */
export const WASI_NAMESPACE = 'wasi_snapshot_preview1';
export const WASI_FUNCTIONS = [
  'args_get',
  'args_sizes_get',
  'environ_get',
  'environ_sizes_get',
  'clock_res_get',
  'clock_time_get',
  'fd_advise',
  'fd_allocate',
  'fd_close',
  'fd_datasync',
  'fd_fdstat_get',
  'fd_fdstat_set_flags',
  'fd_fdstat_set_rights',
  'fd_filestat_get',
  'fd_filestat_set_size',
  'fd_filestat_set_times',
  'fd_pread',
  'fd_prestat_get',
  'fd_prestat_dir_name',
  'fd_pwrite',
  'fd_read',
  'fd_readdir',
  'fd_renumber',
  'fd_seek',
  'fd_sync',
  'fd_tell',
  'fd_write',
  'poll_oneoff',
  'proc_exit',
  'proc_raise',
  'random_get',
  'sched_yield',
] as const;

// Sets, never objects: the engine looks an import up on the object the runner hands it, through its
// prototype chain, so a name like `constructor` or `toString` would link to Object.prototype's member.
const hostFunctions: ReadonlySet<string> = new Set(HOST_FUNCTIONS);
const kernelFunctions: ReadonlySet<string> = new Set(KERNEL_FUNCTIONS);
const wasiFunctions: ReadonlySet<string> = new Set(WASI_FUNCTIONS);

/**
 * Why one import is not allowed, or null when it is: in every namespace only a function the runner
 * defines itself. WASI preview 1 is allowed for what toolchains link by default (clocks, random,
 * fd_write to stdout...); its sockets and paths would reach outside the sandbox, so those functions are
 * refused even though the host would not grant them.
 */
function forbiddenBecause(entry: WasmImport): string | null {
  switch (entry.module) {
    case HOST_NAMESPACE:
      if (entry.kind !== 'function') return `${HOST_NAMESPACE} provides only functions`;
      return hostFunctions.has(entry.name) ? null : `${entry.name} is not a host function of this platform`;
    case KERNEL_NAMESPACE:
      if (entry.kind !== 'function') return `${KERNEL_NAMESPACE} provides only functions`;
      return kernelFunctions.has(entry.name) ? null : `${entry.name} is not an Extism kernel function`;
    case WASI_NAMESPACE:
      if (entry.kind !== 'function') return 'WASI provides only functions';
      if (entry.name.startsWith('sock_')) return 'WASI sockets are not available';
      if (entry.name.startsWith('path_')) return 'WASI file system paths are not available';
      return wasiFunctions.has(entry.name) ? null : `${entry.name} is not a WASI preview 1 function`;
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
