// The WebAssembly binary format at the level the platform reads it: the header, LEB128 integers and the
// section layout. Pure; shared by the memory cap (wasm.ts) and the instance-size bounds (instance-size.ts).

// "\0asm" and binary format version 1. A component (the component model's version 0x0d) is not a module.
export const HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

export interface Section {
  id: number;
  /** Offset of the section id byte. */
  start: number;
  contentStart: number;
  /** Offset just past the section. */
  end: number;
}

/** Thrown while walking bytes that do not have the shape the binary format requires. */
export class Malformed extends Error {}

export function byteAt(bytes: Uint8Array, offset: number): number {
  const byte = bytes[offset];
  if (byte === undefined) throw new Malformed('unexpected end of the module');
  return byte;
}

/** An unsigned LEB128 integer of at most 32 bits: its value and the offset after it. */
export function readU32(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let shift = 0, at = offset; ; shift += 7) {
    const byte = byteAt(bytes, at++);
    // The fifth byte holds the last four bits and ends the number.
    if (shift === 28 && byte > 0x0f) throw new Malformed('integer too large');
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return [value, at];
  }
}

/** The offset after a LEB128 integer of any width (signed or not), without reading its value. */
export function skipLeb(bytes: Uint8Array, offset: number): number {
  let at = offset;
  while (byteAt(bytes, at) & 0x80) at++;
  return at + 1;
}

/** The shortest LEB128 encoding, so a rewrite is deterministic whatever encoding the input used. */
export function encodeU32(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    const low = rest & 0x7f;
    rest = Math.floor(rest / 128);
    out.push(rest === 0 ? low : low | 0x80);
  } while (rest !== 0);
  return out;
}

export function hasWasmHeader(bytes: Uint8Array): boolean {
  return bytes.length >= HEADER.length && HEADER.every((byte, i) => bytes[i] === byte);
}

export function sections(bytes: Uint8Array): Section[] {
  const found: Section[] = [];
  let at = HEADER.length;
  while (at < bytes.length) {
    const id = byteAt(bytes, at);
    const [size, contentStart] = readU32(bytes, at + 1);
    const end = contentStart + size;
    if (end > bytes.length) throw new Malformed(`section ${id} runs past the end of the module`);
    found.push({ id, start: at, contentStart, end });
    at = end;
  }
  return found;
}
