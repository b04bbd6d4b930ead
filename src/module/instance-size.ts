// What sizes an instance besides its linear memory: tables, globals, element and data segments. The
// engine allocates them at instantiation whatever memoryMiB says (a 44 KB module declaring a table of
// 10,000,000 entries took ~650 MB a call), so the platform reads them from the bytes and bounds them.
// Pure: bytes in, counts out.
import { declaredCount, Malformed, Reader, SECTION, type Section, Unsupported } from './binary.ts';
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

const FUNCREF = 0x70;
const EXTERNREF = 0x6f;

function readReftype(reader: Reader): void {
  const type = reader.byte();
  if (type !== FUNCREF && type !== EXTERNREF) {
    throw new Unsupported(`reference type 0x${type.toString(16)} in a table or element segment`);
  }
}

/** A table's type (a reference type and limits): its maximum, null when it has none. */
export function readTableType(reader: Reader): number | null {
  readReftype(reader);
  const flags = reader.byte();
  if (flags & 0x04) throw new Unsupported('64-bit tables (memory64)');
  if (flags > 0x01) throw new Malformed(`table limits flags 0x${flags.toString(16)} are not known`);
  reader.u32();
  return flags === 0x01 ? reader.u32() : null;
}

/** Each table's maximum (null: none), in entries. */
function readTables(bytes: Uint8Array, section: Section): (number | null)[] {
  const tables: (number | null)[] = [];
  const reader = Reader.of(bytes, section);
  for (let count = reader.u32(); count > 0; count--) {
    // A table given an initial value comes with typed function references.
    if (reader.peek() === 0x40) throw new Unsupported('tables with initial values');
    tables.push(readTableType(reader));
  }
  reader.done('table');
  return tables;
}

/** Opcodes of a constant expression with no immediate: the extended-constant arithmetic. */
const NO_IMMEDIATE = new Set([0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e]);

/** Past a constant expression (an offset or an element's value) and its end opcode. */
export function skipConstExpr(reader: Reader): void {
  for (;;) {
    const opcode = reader.byte();
    if (opcode === 0x0b) return;
    if (opcode === 0x41 || opcode === 0x42 || opcode === 0x23 || opcode === 0xd0 || opcode === 0xd2) {
      reader.skipLeb(); // i32/i64.const, global.get, ref.null (heap type), ref.func
    } else if (opcode === 0x43) reader.at += 4;
    else if (opcode === 0x44) reader.at += 8;
    else if (opcode === 0xfb) throw new Unsupported('GC instructions in a constant expression');
    else if (!NO_IMMEDIATE.has(opcode)) {
      throw new Malformed(`constant expression opcode 0x${opcode.toString(16)} is not known`);
    }
  }
}

/**
 * The entries of all element segments (the eight segment forms of the binary format). Reading stops at
 * the segment that takes the count past MAX_ELEMENT_ENTRIES: the module is refused with the count so far,
 * and the rest of its segments, however many, are never walked.
 */
function readElementEntries(bytes: Uint8Array, section: Section): number {
  let total = 0;
  const reader = Reader.of(bytes, section);
  for (let count = reader.u32(); count > 0; count--) {
    const flags = reader.u32();
    if (flags > 7) throw new Malformed(`element segment flags ${flags} are not supported`);
    const active = (flags & 0x01) === 0;
    if (flags & 0x02 && active) reader.u32(); // table index
    if (active) skipConstExpr(reader); // offset
    const expressions = (flags & 0x04) !== 0;
    // Forms 0 and 4 name neither element kind nor reference type.
    if (flags !== 0 && flags !== 4) {
      if (expressions) readReftype(reader);
      else reader.byte();
    }
    const items = reader.u32();
    total += items;
    if (total > MAX_ELEMENT_ENTRIES) return total;
    for (let item = 0; item < items; item++) {
      if (expressions) skipConstExpr(reader);
      else reader.skipLeb();
    }
  }
  reader.done('element');
  return total;
}

/** Reads the sizes; throws Malformed on a section it cannot read. */
export function readInstanceSize(bytes: Uint8Array, all: readonly Section[]): InstanceSize {
  const find = (id: number) => all.find((s) => s.id === id);
  const tableSection = find(SECTION.table);
  const tables = tableSection ? readTables(bytes, tableSection) : [];
  const elementSection = find(SECTION.element);
  return {
    tableEntries: tables.some((max) => max === null)
      ? null
      : tables.reduce<number>((sum, max) => sum + (max ?? 0), 0),
    globals: declaredCount(bytes, find(SECTION.global)),
    elementEntries: elementSection ? readElementEntries(bytes, elementSection) : 0,
    dataSegments: declaredCount(bytes, find(SECTION.data)),
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
