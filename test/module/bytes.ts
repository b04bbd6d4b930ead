// WebAssembly binaries written byte by byte: for what wabt cannot assemble (GC type forms, rec groups),
// for sections whose declared count is all a test needs, and for modules too large to assemble from text
// quickly (a million exports). Shared with bench/module-compile.ts.
import { encodeU32, HEADER, SECTION } from '../../src/module/binary.ts';
import { MAX_BODY_BYTES, MAX_NESTING } from '../../src/module/bodies.ts';
import { WASI_FUNCTIONS } from '../../src/module/imports.ts';
import {
  MAX_CUSTOM_SECTIONS,
  MAX_DATA_SEGMENTS,
  MAX_ELEMENT_SEGMENTS,
  MAX_EXPORTS,
  MAX_FUNCTIONS,
  MAX_GLOBALS,
  MAX_IMPORTS,
  MAX_TABLE_ENTRIES,
  MAX_TYPES,
} from '../../src/module/index.ts';

type Part = Uint8Array | readonly number[];

/** The parts one after another, in one copy (a million parts take a few hundred milliseconds). */
export function join(parts: readonly Part[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A name: its length in UTF-8 bytes, then the bytes. */
export function name(text: string): number[] {
  // An ASCII name is its char codes (Buffer.from per name took seconds a million).
  const out = encodeU32(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return [...encodeU32(Buffer.byteLength(text)), ...Buffer.from(text, 'utf8')];
    out.push(code);
  }
  return out;
}

/** A section: its id, its size, then its content. */
export const section = (id: number, ...content: Part[]): Uint8Array => {
  const body = join(content);
  return join([[id, ...encodeU32(body.length)], body]);
};

/** A vector: its length, then its items. */
export const vector = (items: readonly Part[]): Uint8Array => join([encodeU32(items.length), ...items]);

export const moduleOf = (...sections: Part[]): Uint8Array => join([HEADER, ...sections]);

const times = <T>(count: number, item: (i: number) => T): T[] =>
  Array.from({ length: count }, (_, i) => item(i));

/** Function type 0 is () -> i32 (every function here), type 1 () -> () (every tag here). */
const TYPE_RESULT_I32 = [0x60, 0x00, 0x01, 0x7f];
const TYPE_EMPTY = [0x60, 0x00, 0x00];
/** A body without locals answering i32.const seed (0–63, so the bytes differ by seed). */
const body = (seed: number) => [0x04, 0x00, 0x41, seed & 0x3f, 0x0b];

/** Function exports e0, e1… written straight into one buffer (a million as arrays took seconds). */
function functionExports(count: number, first: number, functions: number): Uint8Array {
  const out = new Uint8Array(count * 16);
  let at = 0;
  for (let i = 0; i < count; i++) {
    const text = `e${i}`;
    out[at++] = text.length;
    for (let c = 0; c < text.length; c++) out[at++] = text.charCodeAt(c);
    out[at++] = 0x00;
    for (const byte of encodeU32(first + (i % functions))) out[at++] = byte;
  }
  return out.subarray(0, at);
}

export interface ModuleShape {
  /** Function types (at least 2: the shapes above, then copies of the first). */
  types?: number;
  /** Function imports from wasi_snapshot_preview1, its function names in turn (allowed by the import policy). */
  imports?: number;
  /** Functions the module defines (at least 1). */
  functions?: number;
  /** Exports in all (at least 3): memory, manifest, invoke, then functions named e0, e1… */
  exports?: number;
  /** Entries of the module's one funcref table (none when 0). */
  tableEntries?: number;
  globals?: number;
  tags?: number;
  /** Passive element segments of one entry each. */
  elementSegments?: number;
  /** Passive, empty data segments. */
  dataSegments?: number;
  customSections?: number;
  /** Bytes of one more passive data segment (zeros), for a module of a given size. */
  dataBytes?: number;
  /** Written into every function body: modules built with different seeds differ, so V8 compiles each
   * afresh instead of reusing the compiled module it keeps for identical bytes. */
  seed?: number;
}

/** As many of each counted thing as an upload may declare. */
export const AT_EVERY_BOUND: ModuleShape = {
  types: MAX_TYPES,
  imports: MAX_IMPORTS,
  functions: MAX_FUNCTIONS,
  exports: MAX_EXPORTS,
  tableEntries: MAX_TABLE_ENTRIES,
  globals: MAX_GLOBALS,
  elementSegments: MAX_ELEMENT_SEGMENTS,
  dataSegments: MAX_DATA_SEGMENTS,
  customSections: MAX_CUSTOM_SECTIONS,
};

/**
 * A module shaped like an app (one memory, manifest and invoke exported), declaring as many of each
 * thing as asked: bench/module-compile.ts builds one at every bound, and one far past the export bound.
 */
export function shapedModule(shape: ModuleShape = {}): Uint8Array {
  const { types = 2, imports = 0, functions = 1, exports = 3, tableEntries = 0 } = shape;
  const { globals = 0, tags = 0, elementSegments = 0, dataSegments = 0, customSections = 0 } = shape;
  const { dataBytes = 0, seed = 0 } = shape;
  const data = [
    ...times(dataSegments, () => [0x01, 0x00]),
    ...(dataBytes > 0 ? [join([[0x01, ...encodeU32(dataBytes)], new Uint8Array(dataBytes)])] : []),
  ];
  const first = imports; // index of the first function the module defines
  const sections = [
    section(SECTION.type, vector([TYPE_RESULT_I32, TYPE_EMPTY, ...times(types - 2, () => TYPE_RESULT_I32)])),
    section(
      SECTION.import,
      vector(
        times(imports, (i) => [
          ...name('wasi_snapshot_preview1'),
          ...name(WASI_FUNCTIONS[i % WASI_FUNCTIONS.length] as string),
          0x00,
          0x00,
        ]),
      ),
    ),
    section(SECTION.function, vector(times(functions, () => [0x00]))),
    tableEntries > 0
      ? section(SECTION.table, vector([[0x70, 0x01, ...encodeU32(tableEntries), ...encodeU32(tableEntries)]]))
      : [],
    section(SECTION.memory, vector([[0x00, 0x01]])),
    tags > 0 ? section(SECTION.tag, vector(times(tags, () => [0x00, 0x01]))) : [],
    globals > 0 ? section(SECTION.global, vector(times(globals, () => [0x7f, 0x00, 0x41, 0x00, 0x0b]))) : [],
    section(
      SECTION.export,
      encodeU32(exports),
      [...name('memory'), 0x02, 0x00],
      [...name('manifest'), 0x00, ...encodeU32(first)],
      [...name('invoke'), 0x00, ...encodeU32(first)],
      functionExports(exports - 3, first, functions),
    ),
    elementSegments > 0
      ? section(
          SECTION.element,
          vector(times(elementSegments, () => [0x01, 0x00, 0x01, ...encodeU32(first)])),
        )
      : [],
    section(SECTION.code, vector(times(functions, () => body(seed)))),
    data.length > 0 ? section(SECTION.data, vector(data)) : [],
    ...times(customSections, (i) => section(SECTION.custom, name(`c${i}`))),
  ];
  return moduleOf(...sections);
}

/**
 * A module of `functions` bodies each at both body bounds: MAX_BODY_BYTES of blocks nested MAX_NESTING
 * deep, over and over, answering i32.const seed. Every function is exported as e0, e1… to be called.
 */
export function deepBodiesModule(functions: number, seed = 0): Uint8Array {
  const unit = [...times(MAX_NESTING, () => [0x02, 0x40]).flat(), ...times(MAX_NESTING, () => 0x0b)];
  const body = new Uint8Array(MAX_BODY_BYTES); // starts with 0: no locals
  let at = 1;
  for (; at + unit.length + 3 <= MAX_BODY_BYTES; at += unit.length) body.set(unit, at);
  body.fill(0x01, at, MAX_BODY_BYTES - 3); // nop
  body.set([0x41, seed & 0x3f, 0x0b], MAX_BODY_BYTES - 3);
  const code = join([encodeU32(body.length), body]);
  return moduleOf(
    section(SECTION.type, vector([TYPE_RESULT_I32])),
    section(SECTION.function, vector(times(functions, () => [0x00]))),
    section(SECTION.memory, vector([[0x00, 0x01]])),
    section(
      SECTION.export,
      encodeU32(functions + 3),
      [...name('memory'), 0x02, 0x00],
      [...name('manifest'), 0x00, 0x00],
      [...name('invoke'), 0x00, 0x00],
      functionExports(functions, 0, functions),
    ),
    section(SECTION.code, vector(times(functions, () => code))),
  );
}
