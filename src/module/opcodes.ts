// The instruction set a function body may use, as a table of immediates: what follows each opcode, so
// the scanner (bodies.ts) can walk every instruction without the engine. An opcode missing from these
// tables is refused, never skipped: its immediates are unknown, so nothing after it could be read. Pure.

/** What follows an opcode in the bytes (a table entry's value). */
export const Imm = {
  None: 0,
  /** block, loop, if: a block type; one nesting level more until its end. */
  Block: 1,
  /** One unsigned LEB128 index (a label, function, local, global, table, data or element segment). */
  Index: 2,
  /** Two indices (call_indirect: type and table; table.copy, table.init, memory.init, memory.copy). */
  TwoIndices: 3,
  /** br_table: a vector of labels, then the default label. */
  BranchTable: 4,
  /** A load or store: alignment and offset. */
  MemArg: 5,
  /** A memarg then a lane index byte (v128.load8_lane …). */
  MemArgLane: 6,
  /** A signed LEB128 constant (i32.const, i64.const). */
  Leb: 7,
  Bytes4: 8,
  Bytes8: 9,
  /** v128.const and i8x16.shuffle. */
  Bytes16: 10,
  /** A lane index byte (extract_lane, replace_lane). */
  Lane: 11,
  /** select with its value types. */
  TypedSelect: 12,
  /** ref.null: a heap type. */
  HeapType: 13,
  /** The end of a block, or of the body at depth 0. */
  End: 14,
} as const;
type ImmKind = (typeof Imm)[keyof typeof Imm];

/** Opcodes refused by name: the feature a module would use, for the refusal. */
export const REFUSED: ReadonlyMap<number, readonly [string, string]> = new Map([
  [0x06, ['exception handling', 'try']],
  [0x07, ['exception handling', 'catch']],
  [0x08, ['exception handling', 'throw']],
  [0x09, ['exception handling', 'rethrow']],
  [0x0a, ['exception handling', 'throw_ref']],
  [0x18, ['exception handling', 'delegate']],
  [0x19, ['exception handling', 'catch_all']],
  [0x1f, ['exception handling', 'try_table']],
  [0x12, ['tail calls', 'return_call']],
  [0x13, ['tail calls', 'return_call_indirect']],
  [0x15, ['tail calls', 'return_call_ref']],
  [0x14, ['typed function references', 'call_ref']],
  [0xd4, ['typed function references', 'ref.as_non_null']],
  [0xd5, ['typed function references', 'br_on_null']],
  [0xd6, ['typed function references', 'br_on_non_null']],
  [0xd3, ['GC instructions', 'ref.eq']],
]);

/** Prefixes refused whole. */
export const REFUSED_PREFIXES: ReadonlyMap<number, string> = new Map([
  [0xfb, 'GC instructions'],
  [0xfe, 'atomics'],
]);

export const MISC_PREFIX = 0xfc;
export const SIMD_PREFIX = 0xfd;

function table(ranges: readonly (readonly [number, number, ImmKind])[]): Uint8Array {
  // 0xff marks an opcode that is not known; a table the size of the opcode space, read by index.
  const out = new Uint8Array(0x200).fill(0xff);
  for (const [from, to, imm] of ranges) out.fill(imm, from, to + 1);
  return out;
}

/** Not known: the value of a table entry for an opcode the platform does not accept. */
export const UNKNOWN = 0xff;

/** One-byte opcodes of the 1.0 core, sign extension and reference types. */
export const CORE = table([
  [0x00, 0x01, Imm.None], // unreachable, nop
  [0x02, 0x04, Imm.Block], // block, loop, if
  [0x05, 0x05, Imm.None], // else
  [0x0b, 0x0b, Imm.End],
  [0x0c, 0x0d, Imm.Index], // br, br_if
  [0x0e, 0x0e, Imm.BranchTable],
  [0x0f, 0x0f, Imm.None], // return
  [0x10, 0x10, Imm.Index], // call
  [0x11, 0x11, Imm.TwoIndices], // call_indirect
  [0x1a, 0x1b, Imm.None], // drop, select
  [0x1c, 0x1c, Imm.TypedSelect],
  [0x20, 0x26, Imm.Index], // local.get/set/tee, global.get/set, table.get/set
  [0x28, 0x3e, Imm.MemArg], // loads and stores
  [0x3f, 0x40, Imm.Index], // memory.size, memory.grow (the memory index)
  [0x41, 0x42, Imm.Leb],
  [0x43, 0x43, Imm.Bytes4],
  [0x44, 0x44, Imm.Bytes8],
  [0x45, 0xc4, Imm.None], // numeric, sign extension (0xc0–0xc4)
  [0xd0, 0xd0, Imm.HeapType], // ref.null
  [0xd1, 0xd1, Imm.None], // ref.is_null
  [0xd2, 0xd2, Imm.Index], // ref.func
]);

/** 0xFC: saturating truncation, bulk memory, table instructions. */
export const MISC = table([
  [0x00, 0x07, Imm.None], // i32/i64.trunc_sat_f32/f64_s/u
  [0x08, 0x08, Imm.TwoIndices], // memory.init data memory
  [0x09, 0x09, Imm.Index], // data.drop
  [0x0a, 0x0a, Imm.TwoIndices], // memory.copy
  [0x0b, 0x0b, Imm.Index], // memory.fill
  [0x0c, 0x0c, Imm.TwoIndices], // table.init element table
  [0x0d, 0x0d, Imm.Index], // elem.drop
  [0x0e, 0x0e, Imm.TwoIndices], // table.copy
  [0x0f, 0x11, Imm.Index], // table.grow, table.size, table.fill
]);

/** Fixed-width SIMD opcodes no instruction has (gaps of the final opcode table). */
const SIMD_GAPS = [
  0x9a, 0xa2, 0xa5, 0xa6, 0xaf, 0xb0, 0xb2, 0xb3, 0xb4, 0xbb, 0xc2, 0xc5, 0xc6, 0xcf, 0xd0, 0xd2, 0xd3, 0xd4,
  0xe2, 0xee,
];

/** 0xFD: fixed-width SIMD (0x00–0xff) and relaxed SIMD (0x100–0x113). */
export const SIMD = (() => {
  const simd = table([
    [0x00, 0x0b, Imm.MemArg], // v128.load … v128.store
    [0x0c, 0x0d, Imm.Bytes16], // v128.const, i8x16.shuffle
    [0x0e, 0x14, Imm.None], // swizzle, splats
    [0x15, 0x22, Imm.Lane], // extract_lane, replace_lane
    [0x23, 0x53, Imm.None], // comparisons, bitwise, any_true
    [0x54, 0x5b, Imm.MemArgLane], // load*_lane, store*_lane
    [0x5c, 0x5d, Imm.MemArg], // load32_zero, load64_zero
    [0x5e, 0xff, Imm.None], // arithmetic, conversions
    [0x100, 0x113, Imm.None], // relaxed SIMD
  ]);
  for (const gap of SIMD_GAPS) simd[gap] = UNKNOWN;
  return simd;
})();
