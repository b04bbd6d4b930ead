// The import and export sections, and memory limits, read from the bytes: what a module asks its host
// for and what it offers, without compiling it (the engine's own lists cost a compile and a JavaScript
// object per entry on the calling thread). Pure; the entries are bounded first (counts.ts).
import { Malformed, Reader, type Section, Unsupported } from './binary.ts';
import { readTableType } from './instance-size.ts';
import { readValueType } from './types.ts';

export type ExternKind = 'function' | 'table' | 'memory' | 'global' | 'tag';
const KINDS: readonly ExternKind[] = ['function', 'table', 'memory', 'global', 'tag'];

export interface WasmImport {
  module: string;
  name: string;
  kind: ExternKind;
}

export interface WasmExport {
  name: string;
  kind: ExternKind;
}

/** Limits of a memory, in 64 KiB pages. */
export interface MemoryLimits {
  minPages: number;
  maxPages: number | null;
}

/** The most pages a 32-bit memory can have (4 GiB). */
export const MAX_PAGES = 65_536;

/**
 * One memory's limits. Only plain 32-bit memories with 64 KiB pages are run: shared memory (threads),
 * memory64 and custom page sizes would each escape or change what memoryMiB means. Limits the engine
 * would refuse are refused here too, so rewriting the maximum (capMemory) never turns an invalid module
 * into a valid one.
 */
export function readMemoryLimits(reader: Reader): MemoryLimits {
  const flags = reader.byte();
  if (flags & 0x02) throw new Unsupported('shared memory (threads)');
  if (flags & 0x04) throw new Unsupported('64-bit memory (memory64)');
  if (flags & 0x08) throw new Unsupported('custom page sizes');
  if (flags > 0x01) throw new Malformed(`memory limits flags 0x${flags.toString(16)} are not known`);
  const minPages = reader.u32();
  const maxPages = flags === 0x01 ? reader.u32() : null;
  if (Math.max(minPages, maxPages ?? 0) > MAX_PAGES)
    throw new Malformed(`a memory of more than ${MAX_PAGES} pages`);
  if (maxPages !== null && maxPages < minPages) throw new Malformed('a memory maximum is below its minimum');
  return { minPages, maxPages };
}

function readKind(reader: Reader): ExternKind {
  const byte = reader.byte();
  const kind = KINDS[byte];
  if (!kind) throw new Malformed(`extern kind 0x${byte.toString(16)} is not known`);
  return kind;
}

export function readImports(bytes: Uint8Array, section: Section): WasmImport[] {
  const imports: WasmImport[] = [];
  const reader = Reader.of(bytes, section);
  for (let count = reader.u32(); count > 0; count--) {
    const module = reader.name();
    const name = reader.name();
    const kind = readKind(reader);
    if (kind === 'function') reader.u32();
    else if (kind === 'table') readTableType(reader);
    else if (kind === 'memory') readMemoryLimits(reader);
    else if (kind === 'global') {
      readValueType(reader, `the imported global ${module}.${name}`);
      if (reader.byte() > 1) throw new Malformed('a global is neither mutable nor immutable');
    } else {
      throw new Unsupported(`exception handling (the imported tag ${module}.${name})`);
    }
    imports.push({ module, name, kind });
  }
  reader.done('import');
  return imports;
}

export function readExports(bytes: Uint8Array, section: Section): WasmExport[] {
  const exports: WasmExport[] = [];
  const reader = Reader.of(bytes, section);
  for (let count = reader.u32(); count > 0; count--) {
    const name = reader.name();
    const kind = readKind(reader);
    reader.u32();
    exports.push({ name, kind });
  }
  reader.done('export');
  return exports;
}
