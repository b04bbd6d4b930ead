// Types of kernel.js (plain JavaScript, loaded by the sandbox thread), for the tests that call it directly.
export declare const BLOCK_OVERHEAD_BYTES: number;
export declare const MAX_BLOCKS: number;
export declare const MAX_VARIABLES: number;
export declare const ERROR_TEXT_BYTES: number;
export declare const MAX_OUTPUT_BYTES: number;
export declare class KernelLimit extends Error {}
/** The extism:host/env functions, as a module calls them (i64 as bigint, i32 as number). */
export interface KernelImports {
  alloc(size: bigint): bigint;
  free(address: bigint): void;
  length(address: bigint): bigint;
  length_unsafe(address: bigint): bigint;
  load_u8(address: bigint): number;
  load_u64(address: bigint): bigint;
  store_u8(address: bigint, value: number): void;
  store_u64(address: bigint, value: bigint): void;
  input_offset(): bigint;
  input_length(): bigint;
  input_load_u8(address: bigint): number;
  input_load_u64(address: bigint): bigint;
  output_set(address: bigint, length: bigint): void;
  error_set(address: bigint): void;
  error_get(): bigint;
  config_get(address: bigint): bigint;
  var_get(address: bigint): bigint;
  var_set(key: bigint, value: bigint): void;
  http_request(request: bigint, body: bigint): bigint;
  http_status_code(): number;
  http_headers(): bigint;
  log_warn(address: bigint): void;
  log_info(address: bigint): void;
  log_debug(address: bigint): void;
  log_error(address: bigint): void;
  log_trace(address: bigint): void;
  get_log_level(): number;
}
export interface Kernel {
  imports: KernelImports;
  begin(input: Uint8Array): void;
  read(address: bigint, maxBytes: number): Uint8Array | 'large' | null;
  store(bytes: Uint8Array): bigint;
  usedBytes(): number;
  chargedBytes(): number;
  /** Frees every block and variable now; answers what freed blocks were charged (left for a collection). */
  dispose(): number;
  outcome(): { error: string } | { output: Uint8Array } | { outputTooLarge: number };
}
export declare function createKernel(options: { budgetBytes: number }): Kernel;
