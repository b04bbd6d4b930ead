// What sizes an instance besides its linear memory: tables, globals, element and data segments. The
// engine allocates them at instantiation whatever memoryMiB says (a 44 KB module declaring a table of
// 10,000,000 entries took ~650 MB a call), so the platform reads them from the bytes and bounds them.
// Pure: bytes in, counts out.
import { byteAt, Malformed, readU32, type Section, skipLeb } from './binary.ts';
import { type ModuleRefusal, refuse } from './refusal.ts';

/** Table entries a module may declare, all its tables together, each counted at its maximum. */
export const MAX_TABLE_ENTRIES = 100_000;
/** What one table entry is counted as against memoryMiB (the engine's cost per funcref entry, rounded up). */
export const TABLE_ENTRY_BYTES = 64;
/** Globals a module may define. */
export const MAX_GLOBALS = 10_000;
/** Entries of all its element segments together. */
export const MAX_ELEMENT_ENTRIES = 100_000;
/** Data segments a module may have (their bytes are bounded by the module's 32 MiB). */
export const MAX_DATA_SEGMENTS = 10_000;

export interface InstanceSize {
  /** Entries of the module's own tables, each at its maximum; null when a table has no maximum. */
  tableEntries: number | null;
  globals: number;
  elementEntries: number;
  dataSegments: number;
}

const TABLE_SECTION = 4;
const GLOBAL_SECTION = 6;
const ELEMENT_SECTION = 9;
const DATA_SECTION = 11;
const FUNCREF = 0x70;
const EXTERNREF = 0x6f;

function readReftype(bytes: Uint8Array, at: number): number {
  const type = byteAt(bytes, at);
  if (type !== FUNCREF && type !== EXTERNREF) {
    throw new Malformed(`reference type 0x${type.toString(16)} is not supported`);
  }
  return at + 1;
}

/** Each table's maximum (null: none), in entries. 64-bit and shared tables are not supported. */
function readTables(bytes: Uint8Array, section: Section): (number | null)[] {
  const tables: (number | null)[] = [];
  let [count, at] = readU32(bytes, section.contentStart);
  for (; count > 0; count--) {
    if (byteAt(bytes, at) === 0x40)
      throw new Malformed('tables with initialiser expressions are not supported');
    at = readReftype(bytes, at);
    const flags = byteAt(bytes, at++);
    if (flags > 0x01) throw new Malformed(`table limits flags 0x${flags.toString(16)} are not supported`);
    const [, afterMin] = readU32(bytes, at);
    at = afterMin;
    let max: number | null = null;
    if (flags === 0x01) [max, at] = readU32(bytes, at);
    tables.push(max);
  }
  if (at !== section.end) throw new Malformed('table section size does not match its entries');
  return tables;
}

/** Opcodes of a constant expression with no immediate: the extended-constant arithmetic. */
const NO_IMMEDIATE = new Set([0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e]);

/** The offset after a constant expression (an offset or an element's value) and its end opcode. */
function skipConstExpr(bytes: Uint8Array, offset: number): number {
  let at = offset;
  for (;;) {
    const opcode = byteAt(bytes, at++);
    if (opcode === 0x0b) return at;
    if (opcode === 0x41 || opcode === 0x42 || opcode === 0x23 || opcode === 0xd0 || opcode === 0xd2) {
      at = skipLeb(bytes, at); // i32/i64.const, global.get, ref.null (heap type), ref.func
    } else if (opcode === 0x43) at += 4;
    else if (opcode === 0x44) at += 8;
    else if (!NO_IMMEDIATE.has(opcode)) {
      throw new Malformed(`constant expression opcode 0x${opcode.toString(16)} is not supported`);
    }
  }
}

/** A vector of function indices or of expressions: its length and the offset after it. */
function readItems(bytes: Uint8Array, offset: number, expressions: boolean): [number, number] {
  let [count, at] = readU32(bytes, offset);
  const items = count;
  for (; count > 0; count--) at = expressions ? skipConstExpr(bytes, at) : skipLeb(bytes, at);
  return [items, at];
}

/** The entries of all element segments (the eight segment forms of the binary format). */
function readElementEntries(bytes: Uint8Array, section: Section): number {
  let total = 0;
  let [count, at] = readU32(bytes, section.contentStart);
  for (; count > 0; count--) {
    const [flags, afterFlags] = readU32(bytes, at);
    if (flags > 7) throw new Malformed(`element segment flags ${flags} are not supported`);
    at = afterFlags;
    const active = (flags & 0x01) === 0;
    if (flags & 0x02 && active) [, at] = readU32(bytes, at); // table index
    if (active) at = skipConstExpr(bytes, at); // offset
    const expressions = (flags & 0x04) !== 0;
    // Forms 0 and 4 name neither element kind nor reference type.
    if (flags !== 0 && flags !== 4) at = expressions ? readReftype(bytes, at) : at + 1;
    const [items, after] = readItems(bytes, at, expressions);
    total += items;
    at = after;
  }
  if (at !== section.end) throw new Malformed('element section size does not match its segments');
  return total;
}

const countOf = (bytes: Uint8Array, section: Section | undefined): number =>
  section ? readU32(bytes, section.contentStart)[0] : 0;

/** Reads the sizes; throws Malformed on a section it cannot read. */
export function readInstanceSize(bytes: Uint8Array, all: readonly Section[]): InstanceSize {
  const find = (id: number) => all.find((s) => s.id === id);
  const tableSection = find(TABLE_SECTION);
  const tables = tableSection ? readTables(bytes, tableSection) : [];
  const elementSection = find(ELEMENT_SECTION);
  return {
    tableEntries: tables.some((max) => max === null)
      ? null
      : tables.reduce<number>((sum, max) => sum + (max ?? 0), 0),
    globals: countOf(bytes, find(GLOBAL_SECTION)),
    elementEntries: elementSection ? readElementEntries(bytes, elementSection) : 0,
    dataSegments: countOf(bytes, find(DATA_SECTION)),
  };
}

/** table_too_large or instance_too_large when a size passes its bound; null within them. */
export function checkInstanceSize(size: InstanceSize): ModuleRefusal | null {
  if (size.tableEntries === null) {
    return refuse(
      'table_too_large',
      'module declares a table without a maximum; give every table a maximum (tables may hold ' +
        `${MAX_TABLE_ENTRIES} entries in all)`,
    );
  }
  if (size.tableEntries > MAX_TABLE_ENTRIES) {
    return refuse(
      'table_too_large',
      `module tables hold up to ${size.tableEntries} entries; at most ${MAX_TABLE_ENTRIES} are accepted`,
    );
  }
  const over = (
    [
      ['globals', size.globals, MAX_GLOBALS],
      ['element segment entries', size.elementEntries, MAX_ELEMENT_ENTRIES],
      ['data segments', size.dataSegments, MAX_DATA_SEGMENTS],
    ] as const
  ).find(([, value, max]) => value > max);
  if (!over) return null;
  const [what, value, max] = over;
  return refuse('instance_too_large', `module has ${value} ${what}; at most ${max} are accepted`);
}

/** The bytes the module's tables are counted as against memoryMiB. */
export const tableBytes = (size: InstanceSize): number => (size.tableEntries ?? 0) * TABLE_ENTRY_BYTES;
