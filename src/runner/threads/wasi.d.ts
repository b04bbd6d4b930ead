// Types of wasi.js (plain JavaScript, loaded by the sandbox thread), for the tests that call it directly.
export declare const ERRNO: {
  success: 0;
  badf: 8;
  fault: 21;
  inval: 28;
  notsup: 58;
  spipe: 70;
};
export declare const MAX_SLEEP_MS: number;
export declare class ProcExit extends Error {
  constructor(code: number);
}
export interface WasiDeps {
  memory(): { buffer: ArrayBuffer } | undefined;
  clock: { realtimeNs(): bigint; monotonicNs(): bigint };
  randomFill(bytes: Uint8Array): void;
  sleep(ms: number): void;
}
export declare function createWasi(deps: WasiDeps): Record<string, (...args: never[]) => unknown>;
