// Types of instance.js (plain JavaScript, loaded by the sandbox thread), for the tests that call it directly.
export declare const HOST_NAMESPACE: string;
export declare function startCodeOf(exportNames: readonly string[], usesWasi: boolean): string[];
export interface HostBridge {
  /** Host function name → the JSON it answers while no call is bound. */
  refusals: Record<string, string>;
  /** Host function name → the most request bytes it reads. */
  limits: Record<string, number>;
  maxRequests: number;
  ask(seq: number, name: string, request: string): string;
}
export interface Prepared {
  readonly instance: unknown;
}
export declare function instantiate(
  module: { module: WebAssembly.Module; maxPages: number },
  host: HostBridge,
): Prepared;
export declare function heldBytes(prepared: Prepared): number;
export declare function madeBytes(prepared: Prepared): number;
export declare function dispose(prepared: Prepared): number;
/** An output past the kernel's MAX_OUTPUT_BYTES: only its size leaves the thread. */
export interface OutputTooLarge {
  tooLargeBytes: number;
}
export declare function runExport(
  prepared: Prepared,
  seq: number,
  exportName: string,
  input: string,
): Uint8Array | OutputTooLarge;
