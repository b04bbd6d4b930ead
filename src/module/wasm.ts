// Reading WebAssembly binaries: the header, the section layout, imports, exports and the module's own
// memory, and the one rewrite the platform makes (spec part 1 §2.14: memoryMiB written in as the memory
// maximum, so the hash names the capped module). Pure: bytes in, bytes or facts out; nothing is instantiated.
import { createHash } from 'node:crypto';
import { byteAt, encodeU32, hasWasmHeader, Malformed, readU32, type Section, sections } from './binary.ts';
import { checkInstanceSize, type InstanceSize, readInstanceSize, tableBytes } from './instance-size.ts';
import { type ModuleRefusal, refuse } from './refusal.ts';

export { hasWasmHeader } from './binary.ts';

/** Spec part 2 §8.1: a module is at most 32 MiB (also the upload body limit). */
export const MAX_MODULE_BYTES = 32 * 1024 * 1024;
/** WebAssembly pages are 64 KiB, so one MiB is 16 pages. */
export const WASM_PAGE_BYTES = 65_536;
export const PAGES_PER_MIB = 16;
/** The most pages a 32-bit memory can have (4 GiB), so the highest cap a module can carry. */
const MAX_PAGES = 65_536;

export type ExternKind = 'function' | 'table' | 'memory' | 'global' | 'tag';

export interface WasmImport {
  module: string;
  name: string;
  kind: ExternKind;
}

export interface WasmExport {
  name: string;
  kind: ExternKind;
}

/** Limits of a memory the module defines itself, in 64 KiB pages. */
export interface MemoryLimits {
  minPages: number;
  maxPages: number | null;
}

export interface ModuleFacts {
  imports: WasmImport[];
  exports: WasmExport[];
  /** The memories of the memory section (id 5), in order; imported memories are among the imports. */
  memories: MemoryLimits[];
  /** Tables, globals, element and data segments: what sizes an instance besides its memory. */
  instanceSize: InstanceSize;
}

// The TypeScript libraries this project compiles with (ES2023 and Node's types) declare no WebAssembly
// values; they live in lib.dom. The few calls used here are typed locally rather than pulling the DOM
// library into every file.
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: {
    new (bytes: Uint8Array): object;
    imports(module: object): { module: string; name: string; kind: string }[];
    exports(module: object): { name: string; kind: string }[];
  };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

const MEMORY_SECTION = 5;

/**
 * The memory section's entries. Only plain 32-bit memories with 64 KiB pages are run: shared memory
 * (threads), memory64 and custom page sizes would each escape or change what memoryMiB means.
 */
function readMemories(bytes: Uint8Array, section: Section): MemoryLimits[] {
  const memories: MemoryLimits[] = [];
  let [count, at] = readU32(bytes, section.contentStart);
  for (; count > 0; count--) {
    const flags = byteAt(bytes, at++);
    if (flags & 0x02) throw new Malformed('shared memory is not supported');
    if (flags & 0x04) throw new Malformed('64-bit memory (memory64) is not supported');
    if (flags > 0x01) throw new Malformed(`memory limits flags 0x${flags.toString(16)} are not supported`);
    const [minPages, afterMin] = readU32(bytes, at);
    at = afterMin;
    let maxPages: number | null = null;
    if (flags === 0x01) [maxPages, at] = readU32(bytes, at);
    memories.push({ minPages, maxPages });
  }
  if (at !== section.end) throw new Malformed('memory section size does not match its entries');
  return memories;
}

const asKind = (kind: string) => kind as ExternKind;

interface Layout extends ModuleFacts {
  memorySection: Section | undefined;
}

function layout(bytes: Uint8Array): Layout | ModuleRefusal {
  if (bytes.length > MAX_MODULE_BYTES) {
    return refuse('too_large', `module is ${bytes.length} bytes; at most ${MAX_MODULE_BYTES} are accepted`);
  }
  if (!hasWasmHeader(bytes)) {
    return refuse('not_wasm', 'not a WebAssembly module: the \\0asm version 1 header is missing');
  }
  let compiled: object;
  try {
    compiled = new wasmApi.Module(bytes);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return refuse('invalid_module', `not valid WebAssembly: ${reason}`);
  }
  try {
    const all = sections(bytes);
    const memorySection = all.find((s) => s.id === MEMORY_SECTION);
    return {
      imports: wasmApi.Module.imports(compiled).map((i) => ({ ...i, kind: asKind(i.kind) })),
      exports: wasmApi.Module.exports(compiled).map((e) => ({ ...e, kind: asKind(e.kind) })),
      memories: memorySection ? readMemories(bytes, memorySection) : [],
      instanceSize: readInstanceSize(bytes, all),
      memorySection,
    };
  } catch (error) {
    if (error instanceof Malformed) return refuse('invalid_module', `bad module: ${error.message}`);
    throw error;
  }
}

/**
 * Size, header, validity (the engine's own compiler decides), imports, exports and own memories.
 * Refuses too_large, not_wasm and invalid_module; the import policy and memory count are the caller's.
 */
export function readModule(bytes: Uint8Array): ({ ok: true } & ModuleFacts) | ModuleRefusal {
  const read = layout(bytes);
  if ('ok' in read) return read;
  const { memorySection: _section, ...facts } = read;
  return { ok: true, ...facts };
}

/**
 * Rewrites the module's one memory so its maximum is memoryMiB (16 pages a MiB), keeping its minimum.
 * Only the memory section changes, re-encoded with shortest LEB128 sizes, so capping a capped module
 * gives the same bytes. A module that imports memory, has no memory or several, or needs more than the
 * cap from the start, is refused: a cap it could not honour would only fail later, at instantiation.
 */
export function capMemory(
  bytes: Uint8Array,
  memoryMiB: number,
): { ok: true; bytes: Uint8Array } | ModuleRefusal {
  const maxPages = memoryMiB * PAGES_PER_MIB;
  if (!Number.isInteger(memoryMiB) || memoryMiB < 1 || maxPages > MAX_PAGES) {
    throw new RangeError(`memoryMiB must be an integer from 1 to ${MAX_PAGES / PAGES_PER_MIB}`);
  }
  const read = layout(bytes);
  if ('ok' in read) return read;
  const imported = read.imports.find((i) => i.kind === 'memory');
  if (imported) {
    return refuse('imported_memory', `module imports its memory (${imported.module}.${imported.name})`);
  }
  const [memory, ...others] = read.memories;
  if (!memory || !read.memorySection) return refuse('invalid_module', 'module defines no memory');
  if (others.length > 0) {
    return refuse('invalid_module', `module defines ${read.memories.length} memories; exactly one is run`);
  }
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
  capped.set([MEMORY_SECTION, ...encodeU32(content.length), ...content], section.start);
  capped.set(bytes.subarray(section.end), capped.length - (bytes.length - section.end));
  // Only the memory limits moved; checked anyway, so a rewrite can never hand on a module that fails later.
  if (!wasmApi.validate(capped))
    return refuse('invalid_module', 'module is not valid once its memory is capped');
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
