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

/** WebAssembly features the AssemblyScript fixtures use, for reading them back as text. */
const FIXTURE_FEATURES = {
  bulk_memory: true,
  sign_extension: true,
  mutable_globals: true,
  sat_float_to_int: true,
  reference_types: true,
  multi_value: true,
} as const;

/**
 * The module with a table of the given limits, e.g. `10000000` (no maximum) or `100000 100000`: read
 * back as text, its one table's clause replaced (or one added when it has none), and assembled again.
 */
export function withTableLimits(bytes: Uint8Array, limits: string): Uint8Array {
  const read = wabt.readWasm(bytes, { readDebugNames: false, ...FIXTURE_FEATURES });
  let text: string;
  try {
    text = read.toText({});
  } finally {
    read.destroy();
  }
  const table = `(table (;0;) ${limits} funcref)`;
  const tables = text.match(/\(table \(;0;\) [0-9 ]+ funcref\)/g) ?? [];
  if (tables.length > 1) throw new Error(`expected at most one table, found ${tables.length}`);
  const changed = tables[0] ? text.replace(tables[0], table) : text.replace(/\)\s*$/, `  ${table})\n`);
  return wat(changed, FIXTURE_FEATURES);
}
