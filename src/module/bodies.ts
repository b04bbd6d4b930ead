// The code section, read instruction by instruction before the engine compiles anything: features the
// runner cannot contain are refused wherever they appear in a body, and what V8 pays for at compile time
// (a body's bytes, its block nesting) is bounded. Tail calls are refused because a thread spinning in a
// return_call loop is not interrupted by worker.terminate(); exception handling because a caught
// exception's payload lives on the thread's JavaScript heap, outside memoryMiB; GC, typed references and
// atomics with the types that would need them (types.ts). An opcode missing from opcodes.ts is refused:
// its immediates are unknown, so nothing after it could be read. One pass, linear in the bytes. Pure.
import { Malformed, Reader, type Section, Unsupported } from './binary.ts';
import { CORE, MISC, MISC_PREFIX, REFUSED, REFUSED_PREFIXES, SIMD, SIMD_PREFIX, UNKNOWN } from './opcodes.ts';
import { isValueType, readHeapType, readValueType } from './types.ts';

/** Bytes of one function body (locals and instructions). */
export const MAX_BODY_BYTES = 1024 * 1024;
/**
 * Bytes of the whole code section. The scan reads every one of them on the api's and the runner's main
 * thread at upload (about 16 ms a MiB here); the largest release app has 66 KB of code, and toolchains
 * that bundle a runtime (Rust with its standard library, TinyGo) write a few MiB.
 */
export const MAX_CODE_BYTES = 8 * 1024 * 1024;
/** Blocks (block, loop, if) open at once in one body. */
export const MAX_NESTING = 1_000;

/** A body past a bound; the message is the refusal's (instance_too_large). */
export class BodyTooLarge extends Error {}

export interface BodyFacts {
  /** Bytes of the largest body. */
  largestBody: number;
  /** The deepest block nesting of any body. */
  deepestNesting: number;
}

/**
 * Reads every body of the code section. Functions are named by their index in the function index space
 * (imported functions first, as the engine and the name section count them), so `firstFunction` is the
 * number of imported functions. Throws Unsupported on a refused feature, BodyTooLarge past a bound and
 * Malformed on bytes that are not instructions.
 */
export function scanBodies(bytes: Uint8Array, section: Section, firstFunction: number): BodyFacts {
  const facts: BodyFacts = { largestBody: 0, deepestNesting: 0 };
  const codeBytes = section.end - section.contentStart;
  if (codeBytes > MAX_CODE_BYTES)
    throw new BodyTooLarge(`module has ${codeBytes} bytes of code; at most ${MAX_CODE_BYTES} are accepted`);
  const reader = Reader.of(bytes, section);
  const bodies = reader.u32();
  for (let i = 0; i < bodies; i++) {
    const index = firstFunction + i;
    const size = reader.u32();
    if (size > MAX_BODY_BYTES) {
      throw new BodyTooLarge(`function ${index} is ${size} bytes; at most ${MAX_BODY_BYTES} are accepted`);
    }
    const end = reader.at + size;
    if (end > section.end) throw new Malformed(`function ${index} runs past the end of the code section`);
    const deepest = scanBody(bytes, reader.at, end, index);
    if (deepest > MAX_NESTING) {
      throw new BodyTooLarge(
        `function ${index} nests blocks ${deepest} deep; at most ${MAX_NESTING} are accepted`,
      );
    }
    facts.largestBody = Math.max(facts.largestBody, size);
    facts.deepestNesting = Math.max(facts.deepestNesting, deepest);
    reader.at = end;
  }
  reader.done('code');
  return facts;
}

// The scan reads every byte of up to 32 MiB on the main thread: the cursor is a local and LEB128
// integers are skipped inline, which keeps it several times faster than a Reader. Running past the body
// is checked once an instruction (reading past a typed array gives undefined, which ends a skip).

/** The position after an unsigned LEB128 integer read by u32At; its value is what u32At answers. */
let next = 0;

/** An unsigned LEB128 integer at `at` (its range is the engine's to check); sets `next`. */
function u32At(bytes: Uint8Array, at: number, end: number): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= end) throw pastEnd();
    const byte = bytes[at++] as number;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) {
      next = at;
      return value;
    }
    if (shift >= 28) throw new Malformed('integer too large');
  }
}

const pastEnd = () => new Malformed('unexpected end of a function body');

/** One value type at `at`; a refused one is named by types.ts. */
function valueTypeAt(bytes: Uint8Array, at: number, end: number, where: string): void {
  if (at < end && isValueType(bytes[at] as number)) return;
  readValueType(new Reader(bytes, at, end), where);
}

/** Reads one body to its end; answers its deepest block nesting. */
function scanBody(bytes: Uint8Array, from: number, end: number, index: number): number {
  const where = `function ${index}`;
  let at = from;
  for (let groups = u32At(bytes, at, end); groups > 0; groups--) {
    u32At(bytes, next, end);
    valueTypeAt(bytes, next, end, `the locals of ${where}`);
    at = next + 1;
    next = at;
  }
  at = next;
  let depth = 0;
  let deepest = 0;
  while (at < end) {
    const opcode = bytes[at++] as number;
    let imm = CORE[opcode] as number;
    let sub = -1;
    if (imm === UNKNOWN) {
      if (opcode === MISC_PREFIX || opcode === SIMD_PREFIX) {
        sub = u32At(bytes, at, end);
        at = next;
        imm = sub < 0x200 ? ((opcode === MISC_PREFIX ? MISC : SIMD)[sub] as number) : UNKNOWN;
      }
      if (imm === UNKNOWN) refuseOpcode(opcode, sub, where);
    }
    // The cases are opcodes.ts's Imm values, as literals.
    switch (imm) {
      case 0: // None
        break;
      case 1: {
        // Block: empty (0x40), one value type, or a type index (a signed LEB128, never negative).
        const first = bytes[at] as number;
        if (first === 0x40) at++;
        else if (first < 0x40 || first >= 0x80) while ((bytes[at++] as number) >= 0x80);
        else {
          valueTypeAt(bytes, at, end, `a block type of ${where}`);
          at++;
        }
        if (++depth > deepest) deepest = depth;
        break;
      }
      case 2: // Index
      case 7: // Leb
        while ((bytes[at++] as number) >= 0x80);
        break;
      case 3: // TwoIndices
        while ((bytes[at++] as number) >= 0x80);
        while ((bytes[at++] as number) >= 0x80);
        break;
      case 4: // BranchTable: the labels, then the default
        for (let labels = u32At(bytes, at, end), after = next; labels >= 0; labels--) {
          while ((bytes[after++] as number) >= 0x80);
          if (after > end) throw pastEnd();
          at = after;
        }
        break;
      case 5: // MemArg: alignment (bit 6 set: a memory index follows, as multi-memory writes it), offset
      case 6: // MemArgLane: the same, then a lane
        if (u32At(bytes, at, end) & 0x40) {
          at = next;
          while ((bytes[at++] as number) >= 0x80);
        } else at = next;
        while ((bytes[at++] as number) >= 0x80);
        if (imm === 6) at++;
        break;
      case 8: // Bytes4
        at += 4;
        break;
      case 9: // Bytes8
        at += 8;
        break;
      case 10: // Bytes16
        at += 16;
        break;
      case 11: // Lane
        at++;
        break;
      case 12: // TypedSelect
        for (let types = u32At(bytes, at, end); types > 0; types--) {
          valueTypeAt(bytes, next, end, where);
          next++;
        }
        at = next;
        break;
      case 13: {
        // HeapType
        const reader = new Reader(bytes, at, end);
        readHeapType(reader, where);
        at = reader.at;
        break;
      }
      case 14: // End
        if (depth === 0) {
          if (at !== end) throw new Malformed(`${where} ends before the end of its body`);
          return deepest;
        }
        depth--;
        break;
      default:
        throw new Error(`opcodes.ts has an entry the scanner does not read: ${imm}`);
    }
    if (at > end) throw pastEnd();
  }
  throw pastEnd();
}

function refuseOpcode(opcode: number, sub: number, where: string): never {
  const named = REFUSED.get(opcode);
  if (named) throw new Unsupported(`${named[0]} (${named[1]} in ${where})`);
  const prefix = REFUSED_PREFIXES.get(opcode);
  if (prefix) throw new Unsupported(`${prefix} (the prefix 0x${hex(opcode)} in ${where})`);
  const code = sub < 0 ? `0x${hex(opcode)}` : `0x${hex(opcode)} 0x${hex(sub)}`;
  throw new Unsupported(`an unknown opcode (${code} in ${where})`);
}

const hex = (byte: number) => byte.toString(16).padStart(2, '0');
