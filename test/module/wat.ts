// Test modules built from WebAssembly text at test time, so no binary fixture is committed.
import wabtInit from 'wabt';

const wabt = await wabtInit();

type Features = Parameters<typeof wabt.parseWat>[2];

/** The binary of a module written in WebAssembly text. */
export function wat(text: string, features?: Features): Uint8Array {
  const parsed = wabt.parseWat('fixture.wat', text, features);
  try {
    return parsed.toBinary({}).buffer;
  } finally {
    parsed.destroy();
  }
}

export interface AppModuleShape {
  /** [namespace, name] function imports, or whole import clauses. */
  imports?: (readonly [string, string] | string)[];
  /** Exported function names. */
  exports?: string[];
  /** The memory clause; '' for none. */
  memory?: string;
  /** Anything else to put in the module. */
  extra?: string;
}

/** A module shaped like an app: function imports, exported functions that do nothing, one memory. */
export function appModule(shape: AppModuleShape = {}): Uint8Array {
  const {
    imports = [],
    exports = ['manifest', 'invoke'],
    memory = '(memory (export "memory") 1)',
    extra = '',
  } = shape;
  const importClauses = imports.map((entry) =>
    typeof entry === 'string'
      ? entry
      : `(import ${JSON.stringify(entry[0])} ${JSON.stringify(entry[1])} (func))`,
  );
  const exportClauses = exports.map(
    (name) => `(func (export ${JSON.stringify(name)}) (result i32) i32.const 0)`,
  );
  return wat(`(module ${importClauses.join(' ')} ${memory} ${exportClauses.join(' ')} ${extra})`);
}

// The libraries this project compiles with declare no WebAssembly values (they live in lib.dom).
interface WasmMemory {
  grow(pages: number): number;
  buffer: ArrayBuffer;
}
interface WasmTestApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmTestApi }).WebAssembly;

export const validWasm = (bytes: Uint8Array) => wasmApi.validate(bytes);

/** Instantiates a module without imports and hands back its exported memory. */
export function exportedMemory(bytes: Uint8Array, name = 'memory'): WasmMemory {
  const instance = new wasmApi.Instance(new wasmApi.Module(bytes), {});
  return instance.exports[name] as WasmMemory;
}
