// Reading WebAssembly binaries: the header, the section layout, imports, exports and the module's own
// memory, and the one rewrite the platform makes (the manifest's memoryMiB written in as the memory
// maximum, so the hash names the capped module). Pure: bytes in, bytes or facts out; nothing is compiled
// or instantiated (compile.ts asks the engine, off the calling thread). The order is cheapest first: the
// size, the header, the section walk, the declared counts, and only then the entries.
import { createHash } from 'node:crypto';
import {
  declaredCount,
  encodeU32,
  hasWasmHeader,
  Malformed,
  Reader,
  SECTION,
  type Section,
  sections,
  TooManyCustomSections,
  Unsupported,
} from './binary.ts';
import { BodyTooLarge, scanBodies } from './bodies.ts';
import { checkCounts, MAX_CUSTOM_SECTIONS, overBound } from './counts.ts';
import {
  MAX_PAGES,
  type MemoryLimits,
  readExports,
  readImports,
  readMemoryLimits,
  type WasmExport,
  type WasmImport,
} from './externs.ts';
import { checkInstanceSize, type InstanceSize, readInstanceSize, tableBytes } from './instance-size.ts';
import { type ModuleRefusal, refuse } from './refusal.ts';
import { readGlobalTypes, readTypes } from './types.ts';

export { hasWasmHeader } from './binary.ts';
export type { ExternKind, MemoryLimits, WasmExport, WasmImport } from './externs.ts';

/** A module is at most 32 MiB (also the upload body limit). */
export const MAX_MODULE_BYTES = 32 * 1024 * 1024;
/** WebAssembly pages are 64 KiB, so one MiB is 16 pages. */
export const WASM_PAGE_BYTES = 65_536;
export const PAGES_PER_MIB = 16;

export interface ModuleFacts {
  imports: WasmImport[];
  exports: WasmExport[];
  /** The memory the module defines (memory section, id 5), if any; imported memories are imports. */
  memories: MemoryLimits[];
  /** Tables, globals, element and data segments: what sizes an instance besides its memory. */
  instanceSize: InstanceSize;
}

/** The memory section's one entry, if any: a module of several memories is refused (multi-memory). */
function readMemories(bytes: Uint8Array, section: Section): MemoryLimits[] {
  const reader = Reader.of(bytes, section);
  const count = reader.u32();
  if (count > 1) throw new SeveralMemories(count);
  const memories = count === 1 ? [readMemoryLimits(reader)] : [];
  reader.done('memory');
  return memories;
}

class SeveralMemories extends Error {
  constructor(readonly count: number) {
    super(`module defines ${count} memories; it must define exactly one`);
  }
}

interface Layout extends ModuleFacts {
  memorySection: Section | undefined;
}

/** `bodies`: also read every instruction (bodies.ts), the most costly step; capMemory's callers did. */
function layout(bytes: Uint8Array, bodies: boolean): Layout | ModuleRefusal {
  if (bytes.length > MAX_MODULE_BYTES) {
    return refuse('too_large', `module is ${bytes.length} bytes; at most ${MAX_MODULE_BYTES} are accepted`);
  }
  if (!hasWasmHeader(bytes)) {
    return refuse('not_wasm', 'not a WebAssembly module: the \\0asm version 1 header is missing');
  }
  try {
    const all = sections(bytes, MAX_CUSTOM_SECTIONS);
    const overCount = checkCounts(bytes, all);
    if (overCount) return overCount;
    const find = (id: number) => all.find((s) => s.id === id);
    const typeSection = find(SECTION.type);
    if (typeSection) readTypes(bytes, typeSection);
    const importSection = find(SECTION.import);
    const exportSection = find(SECTION.export);
    const memorySection = find(SECTION.memory);
    const imports = importSection ? readImports(bytes, importSection) : [];
    const tags = declaredCount(bytes, find(SECTION.tag));
    if (tags > 0) throw new Unsupported(`exception handling (a tag section declaring ${tags})`);
    const globalSection = find(SECTION.global);
    if (globalSection) readGlobalTypes(bytes, globalSection);
    const facts = {
      imports,
      exports: exportSection ? readExports(bytes, exportSection) : [],
      memories: memorySection ? readMemories(bytes, memorySection) : [],
      instanceSize: readInstanceSize(bytes, all),
      memorySection,
    };
    // Last, as it reads the most: every instruction of every body.
    const codeSection = find(SECTION.code);
    const imported = imports.filter((entry) => entry.kind === 'function').length;
    if (bodies && codeSection) scanBodies(bytes, codeSection, imported);
    return facts;
  } catch (error) {
    if (error instanceof TooManyCustomSections)
      return overBound(`more than ${error.max}`, 'custom sections', error.max);
    if (error instanceof Unsupported)
      return refuse('invalid_module', `module uses ${error.message}, which the platform does not accept`);
    if (error instanceof BodyTooLarge) return refuse('instance_too_large', error.message);
    if (error instanceof SeveralMemories) return refuse('invalid_module', error.message);
    if (error instanceof Malformed) return refuse('invalid_module', `bad module: ${error.message}`);
    throw error;
  }
}

/**
 * Size, header, well-formed sections, the declared counts within their bounds, only accepted features,
 * then imports, exports, the module's own memory and its instance sizes, all from the bytes. Refuses
 * too_large, not_wasm, instance_too_large (a count past its bound) and invalid_module; the import policy,
 * the instance-size bounds and the engine's validation (compileModule) are the caller's.
 */
export function readModule(bytes: Uint8Array): ({ ok: true } & ModuleFacts) | ModuleRefusal {
  const read = layout(bytes, true);
  if ('ok' in read) return read;
  const { memorySection: _section, ...facts } = read;
  return { ok: true, ...facts };
}

/**
 * Rewrites the module's one memory so its maximum is memoryMiB (16 pages a MiB), keeping its minimum.
 * Only the memory section changes, re-encoded with shortest LEB128 sizes, so capping a capped module
 * gives the same bytes. A module that imports memory, has no memory or several, or needs more than the
 * cap from the start, is refused: a cap it could not honour would only fail later, at instantiation.
 * Pure and synchronous: it reads the bytes as readModule does, but for the function bodies (every caller
 * has checked them with checkModuleBytes first, and the cap leaves the code section as it is), and never
 * compiles them.
 */
export function capMemory(
  bytes: Uint8Array,
  memoryMiB: number,
): { ok: true; bytes: Uint8Array } | ModuleRefusal {
  const maxPages = memoryMiB * PAGES_PER_MIB;
  if (!Number.isInteger(memoryMiB) || memoryMiB < 1 || maxPages > MAX_PAGES) {
    throw new RangeError(`memoryMiB must be an integer from 1 to ${MAX_PAGES / PAGES_PER_MIB}`);
  }
  const read = layout(bytes, false);
  if ('ok' in read) return read;
  const imported = read.imports.find((i) => i.kind === 'memory');
  if (imported) {
    return refuse('imported_memory', `module imports its memory (${imported.module}.${imported.name})`);
  }
  const [memory] = read.memories;
  if (!memory || !read.memorySection) return refuse('invalid_module', 'module defines no memory');
  if (memory.minPages > maxPages) {
    return refuse(
      'invalid_module',
      `module memory starts at ${memory.minPages} pages, above the ${maxPages} pages of memoryMiB ${memoryMiB}`,
    );
  }
  const sized = checkInstanceSize(read.instanceSize) ?? checkTablesFit(read.instanceSize, memory, memoryMiB);
  if (sized) return sized;
  const content = [...encodeU32(1), 0x01, ...encodeU32(memory.minPages), ...encodeU32(maxPages)];
  const section = read.memorySection;
  const capped = new Uint8Array(
    section.start + 1 + encodeU32(content.length).length + content.length + (bytes.length - section.end),
  );
  capped.set(bytes.subarray(0, section.start), 0);
  capped.set([SECTION.memory, ...encodeU32(content.length), ...content], section.start);
  capped.set(bytes.subarray(section.end), capped.length - (bytes.length - section.end));
  // Only the memory limits moved, to limits the engine accepts (readMemoryLimits refuses any it would
  // not), so the capped module is valid exactly when the original is: no engine check is needed here.
  return { ok: true, bytes: capped };
}

/** Tables count against memoryMiB: with the memory's start they must fit in it. */
function checkTablesFit(size: InstanceSize, memory: MemoryLimits, memoryMiB: number): ModuleRefusal | null {
  const tables = tableBytes(size);
  if (memory.minPages * WASM_PAGE_BYTES + tables <= memoryMiB * PAGES_PER_MIB * WASM_PAGE_BYTES) return null;
  return refuse(
    'table_too_large',
    `module tables (${size.tableEntries} entries, counted as ${Math.ceil(tables / 1024)} KiB) and its ` +
      `memory's start of ${memory.minPages} pages need more than memoryMiB ${memoryMiB}`,
  );
}

/** The module's name in storage and in the api: 64 lower-case hex characters. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
