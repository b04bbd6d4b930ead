// The WebAssembly binary format at the level the platform reads it: the header, a cursor for LEB128
// integers and names, and the section layout. Pure; shared by every reader of src/module.

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

/** Section ids of the binary format: 0 is custom, 1 type … 12 data count, 13 tag (exception handling). */
export const SECTION = {
  custom: 0,
  type: 1,
  import: 2,
  function: 3,
  table: 4,
  memory: 5,
  global: 6,
  export: 7,
  start: 8,
  element: 9,
  code: 10,
  data: 11,
  dataCount: 12,
  tag: 13,
} as const;
const LAST_SECTION_ID = SECTION.tag;

/** Thrown while walking bytes that do not have the shape the binary format requires. */
export class Malformed extends Error {}

/**
 * Thrown on a well-formed use of a WebAssembly feature the platform does not run; the message names the
 * feature (docs/module-contract.md lists what is accepted and what is not).
 */
export class Unsupported extends Error {}

/** Thrown by the section walker when a module has more custom sections than it was allowed. */
export class TooManyCustomSections extends Error {
  constructor(readonly max: number) {
    super(`more than ${max} custom sections`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A cursor over one section (or the whole module): every read moves it, and none may pass its end. The
 * parsers run on the main thread of the api and the runner, often in a process where they have not run
 * yet: reading through one object, rather than returning a tuple per integer, keeps them about twice as
 * fast before V8 has optimised them.
 */
export class Reader {
  #text: string | undefined;
  readonly #start: number;
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly end = bytes.length,
  ) {
    this.#start = at;
  }

  static of(bytes: Uint8Array, section: Section): Reader {
    return new Reader(bytes, section.contentStart, section.end);
  }

  peek(): number {
    if (this.at >= this.end) throw new Malformed('unexpected end of a section');
    return this.bytes[this.at] as number;
  }

  byte(): number {
    const byte = this.peek();
    this.at++;
    return byte;
  }

  /** An unsigned LEB128 integer of at most 32 bits. */
  u32(): number {
    let byte = this.byte();
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    for (let shift = 7; ; shift += 7) {
      byte = this.byte();
      // The fifth byte holds the last four bits and ends the number.
      if (shift === 28 && byte > 0x0f) throw new Malformed('integer too large');
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
  }

  /** Past a LEB128 integer of any width (signed or not), without reading its value. */
  skipLeb(): void {
    while (this.byte() & 0x80);
  }

  /** A name: a length, then that many bytes of UTF-8. */
  name(): string {
    const length = this.u32();
    const start = this.at;
    const end = start + length;
    if (end > this.end) throw new Malformed('a name runs past the end of its section');
    this.at = end;
    const { bytes } = this;
    for (let i = start; i < end; i++) {
      if ((bytes[i] as number) >= 0x80) return decodeUtf8(bytes.subarray(start, end));
    }
    // ASCII, as nearly every name is: a slice of the section, read once as text.
    this.#text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
      'latin1',
      this.#start,
      this.end,
    );
    return this.#text.slice(start - this.#start, end - this.#start);
  }

  /** Throws unless the entries ended exactly where the section does. */
  done(what: string): void {
    if (this.at !== this.end) throw new Malformed(`${what} section size does not match its entries`);
  }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Malformed('a name is not valid UTF-8');
  }
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

/**
 * The sections, in order. Every section but custom ones appears at most once and a custom section names
 * itself; the walk stops at the first custom section past maxCustom, so a module made of millions of
 * empty custom sections costs no more to refuse than one with the bound's worth.
 */
export function sections(bytes: Uint8Array, maxCustom = Number.POSITIVE_INFINITY): Section[] {
  const found: Section[] = [];
  const seen = new Set<number>();
  let custom = 0;
  const module = new Reader(bytes, HEADER.length);
  while (module.at < bytes.length) {
    const start = module.at;
    const id = module.byte();
    if (id > LAST_SECTION_ID) throw new Malformed(`unknown section id ${id}`);
    const size = module.u32();
    const section = { id, start, contentStart: module.at, end: module.at + size };
    if (section.end > bytes.length) throw new Malformed(`section ${id} runs past the end of the module`);
    if (id === SECTION.custom) {
      if (++custom > maxCustom) throw new TooManyCustomSections(maxCustom);
      // Only the name is read: the engine does not look inside custom sections either.
      const name = Reader.of(bytes, section);
      name.at += name.u32();
      if (name.at > section.end) throw new Malformed('a custom section has no room for its name');
    } else if (seen.has(id)) {
      throw new Malformed(`section ${id} appears twice`);
    }
    seen.add(id);
    found.push(section);
    module.at = section.end;
  }
  return found;
}

/** The number of entries a section's vector declares, read from its first bytes without reading them. */
export const declaredCount = (bytes: Uint8Array, section: Section | undefined): number =>
  section ? Reader.of(bytes, section).u32() : 0;
