// The function-body scan (src/module/bodies.ts): every instruction is read before the engine compiles.
// Accepted instruction families pass the scan and compile; refused features and unknown opcodes are
// refused invalid_module naming the feature and the function; bodies past the bounds instance_too_large.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeU32, SECTION, sections } from '../../src/module/binary.ts';
import { MAX_BODY_BYTES, MAX_CODE_BYTES, MAX_NESTING, scanBodies } from '../../src/module/bodies.ts';
import { inspectModuleBytes } from '../../src/module/inspect.ts';
import { CORE, MISC, REFUSED, REFUSED_PREFIXES, SIMD, UNKNOWN } from '../../src/module/opcodes.ts';
import { capMemory, readModule } from '../../src/module/wasm.ts';
import { join, moduleOf, name, section, vector } from './bytes.ts';
import { wat } from './wat.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

type Features = Parameters<typeof wat>[1];

/**
 * An app-shaped module around `extra`: manifest and invoke are the first functions it defines, so
 * `extra`'s first is function 2 when `imports` holds no function.
 */
const app = (extra: string, features?: Features, imports = '') =>
  wat(
    `(module ${imports} (memory (export "memory") 1)
      (func (export "manifest") (result i32) i32.const 0)
      (func (export "invoke") (result i32) i32.const 0)
      ${extra})`,
    features,
  );

/** The same shape written byte by byte, function 2 of type () -> () being `body` (ended here) after `locals`. */
/** A module whose third function (`copies` of them) has `body`; the first two answer 0. */
function withBody(body: ArrayLike<number>, locals: number[][] = [], copies = 1): Uint8Array {
  const answer = [0x00, 0x41, 0x00, 0x0b];
  const own = join([vector(locals), Uint8Array.from(body), [0x0b]]);
  return moduleOf(
    section(
      SECTION.type,
      vector([
        [0x60, 0x00, 0x01, 0x7f],
        [0x60, 0x00, 0x00],
      ]),
    ),
    section(SECTION.function, vector([[0x00], [0x00], ...new Array(copies).fill([0x01])])),
    section(SECTION.memory, vector([[0x00, 0x01]])),
    section(
      SECTION.export,
      vector([
        [...name('memory'), 0x02, 0x00],
        [...name('manifest'), 0x00, 0x00],
        [...name('invoke'), 0x00, 0x01],
      ]),
    ),
    section(
      SECTION.code,
      vector([
        [...encodeU32(answer.length), ...answer],
        [...encodeU32(answer.length), ...answer],
        ...new Array(copies).fill(join([encodeU32(own.length), own])),
      ]),
    ),
  );
}

/** Expects the refusal from the bytes alone, the engine never asked. */
async function expectRefused(bytes: Uint8Array, code: string, message: string) {
  const compile = vi.spyOn(WebAssembly, 'compile');
  const refusal = { ok: false, code, message };
  expect(readModule(bytes)).toEqual(refusal);
  expect(await inspectModuleBytes(bytes)).toEqual(refusal);
  expect(compile).not.toHaveBeenCalled();
}

const notAccepted = (feature: string) => `module uses ${feature}, which the platform does not accept`;

describe('accepted instruction families: through the scan and the engine', () => {
  const simd = { simd: true } as const;
  const families: [string, string, Features][] = [
    [
      'control: block, loop, if/else, br, br_if, br_table, return, unreachable, nop',
      `(func (param i32) (result i32)
        (block $out (result i32)
          (loop $again
            (if (local.get 0) (then nop) (else br $again))
            (block $a (block $b (br_table $a $b $a (local.get 0))))
            (br_if $out (i32.const 1) (local.get 0))
            drop)
          i32.const 2
          return)
        )
       (func unreachable)`,
      {},
    ],
    [
      'multi-value block types: empty, a value type, a type index',
      `(type $pair (func (param i32) (result i32 i32)))
       (func (result i32 i32)
         (block)
         (block (result i64) i64.const 1) drop
         i32.const 7
         block (type $pair) (param i32) (result i32 i32) i32.const 1 end)`,
      { multi_value: true },
    ],
    [
      'calls, call_indirect, locals, globals, drop, select',
      `(type $t (func (result i32)))
       (table 1 1 funcref) (elem (i32.const 0) $one)
       (global $g (mut i64) (i64.const 0))
       (func $one (result i32) i32.const 1)
       (func (param i32) (result i32) (local f32 f64 v128)
         call $one drop
         (call_indirect (type $t) (i32.const 0)) local.set 0
         (global.set $g (i64.const 5)) global.get $g drop
         (select (local.get 0) (i32.const 1) (local.tee 0 (i32.const 0))))`,
      {},
    ],
    [
      'constants, loads, stores, memory.size and memory.grow, numeric operations',
      `(func (result f64)
         (i32.store8 offset=3 (i32.const 0) (i32.const -1))
         (i64.store32 align=2 (i32.const 8) (i64.const 0x7fffffffffffffff))
         (f32.store (i32.const 16) (f32.const 1.5))
         (f64.store (i32.const 24) (f64.const -2.25))
         (drop (i64.load16_u (i32.const 0)))
         (drop (memory.grow (memory.size)))
         (f64.add (f64.load (i32.const 24)) (f64.convert_i32_s (i32.clz (i32.const 1)))))`,
      {},
    ],
    [
      'sign extension and saturating truncation',
      `(func (param f64) (result i64)
         (drop (i32.extend16_s (i32.const 0xffff)))
         (i64.add (i64.extend32_s (i64.const 1)) (i64.trunc_sat_f64_u (local.get 0))))`,
      {},
    ],
    [
      'bulk memory: memory.init, data.drop, memory.copy, memory.fill',
      `(data $d "abc")
       (func
         (memory.init $d (i32.const 0) (i32.const 0) (i32.const 3)) (data.drop $d)
         (memory.copy (i32.const 8) (i32.const 0) (i32.const 3))
         (memory.fill (i32.const 0) (i32.const 0) (i32.const 8)))`,
      {},
    ],
    [
      'reference types: ref.null, ref.is_null, ref.func, typed select, table.get/set/grow/size/fill/copy/init, elem.drop',
      `(table $t 4 8 funcref) (table $x 2 2 externref)
       (elem $e func $f)
       (func $f)
       (func (param externref) (result i32)
         (table.set $t (i32.const 0) (ref.func $f))
         (table.set $x (i32.const 1) (local.get 0))
         (drop (table.get $t (i32.const 0)))
         (drop (table.grow $t (ref.null func) (i32.const 1)))
         (table.fill $t (i32.const 0) (ref.null func) (i32.const 1))
         (table.copy $t $t (i32.const 0) (i32.const 1) (i32.const 1))
         (table.init $t $e (i32.const 0) (i32.const 0) (i32.const 1)) (elem.drop $e)
         (drop (select (result externref) (ref.null extern) (local.get 0) (i32.const 1)))
         (i32.add (table.size $t) (ref.is_null (ref.null extern))))`,
      {},
    ],
    [
      'fixed-width SIMD: memargs, lanes, v128.const, i8x16.shuffle, arithmetic',
      `(func (result i32)
         (v128.store offset=16 (i32.const 0) (v128.const i32x4 1 2 3 4))
         (drop (v128.load8_lane 3 (i32.const 0) (v128.load32_zero (i32.const 4))))
         (v128.store64_lane 1 (i32.const 32) (v128.load8x8_s (i32.const 0)))
         (drop (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (v128.load (i32.const 0)) (v128.load64_splat (i32.const 0))))
         (drop (f64x2.promote_low_f32x4 (i32x4.dot_i16x8_s (v128.const i64x2 1 2) (v128.const i64x2 3 4))))
         (i32x4.extract_lane 2 (i32x4.replace_lane 1 (i32x4.splat (i32.const 7)) (i32.const 9))))`,
      simd,
    ],
    [
      'relaxed SIMD',
      `(func (param v128 v128 v128) (result v128)
         (drop (i32x4.relaxed_dot_i8x16_i7x16_add_s (local.get 0) (local.get 1) (local.get 2)))
         (f32x4.relaxed_madd (local.get 0) (local.get 1) (i8x16.relaxed_swizzle (local.get 1) (local.get 2))))`,
      { simd: true, relaxed_simd: true },
    ],
  ];
  for (const [what, extra, features] of families) {
    it(`accepts ${what}`, async () => {
      const bytes = app(extra, features);
      const code = sections(bytes).find((s) => s.id === SECTION.code);
      if (!code) throw new Error('no code section');
      expect(scanBodies(bytes, code, 0).deepestNesting).toBeLessThanOrEqual(MAX_NESTING);
      const inspected = await inspectModuleBytes(bytes);
      expect(inspected.ok ? inspected.module : inspected.message).toBeInstanceOf(WebAssembly.Module);
    });
  }
});

describe('the opcode tables', () => {
  // A body of one opcode and zeros: the engine fails it, and says "invalid … opcode" only when the
  // opcode is no instruction at all (any other failure is about its operands or immediates).
  const engineKnows = (prefixed: number[]) => {
    try {
      new WebAssembly.Module(withBody([...prefixed, ...new Array(20).fill(0)]));
      return true;
    } catch (error) {
      return !/invalid( simd| numeric)? opcode/i.test((error as Error).message);
    }
  };
  const known = (table: Uint8Array, prefix: number[]) =>
    [...table.keys()].filter((op) => table[op] !== UNKNOWN).map((op) => [...prefix, ...encodeU32(op)]);

  it('accept only opcodes the engine knows', () => {
    const tables = [known(CORE, []), known(MISC, [0xfc]), known(SIMD, [0xfd])].flat();
    expect(tables.filter((opcode) => !engineKnows(opcode))).toEqual([]);
    expect(tables.length).toBeGreaterThan(400);
  });

  it('leave out, of the one-byte opcodes the engine knows, exactly those refused by name', () => {
    const left = [...CORE.keys()]
      .filter((op) => op < 0x100 && CORE[op] === UNKNOWN && op !== 0xfc && op !== 0xfd)
      .filter((op) => engineKnows([op]));
    expect(left.sort((a, b) => a - b)).toEqual(
      [...REFUSED.keys(), ...REFUSED_PREFIXES.keys()].sort((a, b) => a - b),
    );
  });
});

describe('refused features, wherever a body uses them', () => {
  const eh = { exceptions: true } as const;
  const refused: [string, () => Uint8Array, string][] = [
    [
      'return_call',
      () => app('(func $f return_call $f)', { tail_call: true }),
      'tail calls (return_call in function 2)',
    ],
    [
      'return_call_indirect',
      () =>
        app('(type $t (func)) (table 1 1 funcref) (func (return_call_indirect (type $t) (i32.const 0)))', {
          tail_call: true,
        }),
      'tail calls (return_call_indirect in function 2)',
    ],
    ['return_call_ref', () => withBody([0x15, 0x01]), 'tail calls (return_call_ref in function 2)'],
    [
      'try and catch_all',
      () => app('(func try nop catch_all end)', eh),
      'exception handling (try in function 2)',
    ],
    ['catch', () => withBody([0x07, 0x00]), 'exception handling (catch in function 2)'],
    ['throw', () => withBody([0x08, 0x00]), 'exception handling (throw in function 2)'],
    ['rethrow', () => withBody([0x09, 0x00]), 'exception handling (rethrow in function 2)'],
    ['throw_ref', () => withBody([0x0a]), 'exception handling (throw_ref in function 2)'],
    ['delegate', () => withBody([0x18, 0x00]), 'exception handling (delegate in function 2)'],
    ['catch_all', () => withBody([0x19]), 'exception handling (catch_all in function 2)'],
    ['try_table', () => withBody([0x1f, 0x40, 0x00, 0x0b]), 'exception handling (try_table in function 2)'],
    ['a tag', () => app('(tag $e)', eh), 'exception handling (a tag section declaring 1)'],
    [
      'an imported tag',
      () => app('', eh, '(import "env" "e" (tag))'),
      'exception handling (the imported tag env.e)',
    ],
    [
      'an exnref local',
      () => withBody([], [[0x01, 0x69]]),
      'exception handling (exnref in the locals of function 2)',
    ],
    [
      'an exnref block type',
      () => withBody([0x02, 0x69, 0x00, 0x0b]),
      'exception handling (exnref in a block type of function 2)',
    ],
    [
      'an exnref global',
      () => app('(global (mut exnref) (ref.null exn))', eh),
      'exception handling (exnref in global 0)',
    ],
    [
      'an imported exnref global',
      () => app('', eh, '(import "env" "x" (global exnref))'),
      'exception handling (exnref in the imported global env.x)',
    ],
    ['an exnref parameter', () => app('(func (param exnref))', eh), 'exception handling (exnref in type 1)'],
    ['ref.null exn', () => withBody([0xd0, 0x69, 0x1a]), 'exception handling (exnref in function 2)'],
    ['call_ref, bare', () => withBody([0x14, 0x01]), 'typed function references (call_ref in function 2)'],
    ['ref.as_non_null', () => withBody([0xd4]), 'typed function references (ref.as_non_null in function 2)'],
    ['br_on_null', () => withBody([0xd5, 0x00]), 'typed function references (br_on_null in function 2)'],
    [
      'br_on_non_null',
      () => withBody([0xd6, 0x00]),
      'typed function references (br_on_non_null in function 2)',
    ],
    ['ref.eq', () => withBody([0xd3]), 'GC instructions (ref.eq in function 2)'],
    [
      'ref.i31 (the 0xfb prefix)',
      () => withBody([0x41, 0x00, 0xfb, 0x1c, 0x1a]),
      'GC instructions (the prefix 0xfb in function 2)',
    ],
    [
      'atomics (the 0xfe prefix)',
      () => withBody([0x41, 0x00, 0xfe, 0x10, 0x02, 0x00, 0x1a]),
      'atomics (the prefix 0xfe in function 2)',
    ],
    [
      'an anyref local',
      () => withBody([], [[0x01, 0x6e]]),
      'the GC reference type anyref in the locals of function 2',
    ],
    [
      'a (ref null 0) local',
      () => withBody([], [[0x01, 0x63, 0x00]]),
      'typed references (ref …) in the locals of function 2',
    ],
    ['ref.null any', () => withBody([0xd0, 0x6e, 0x1a]), 'the GC reference type anyref in function 2'],
    [
      'ref.null of a type index',
      () => withBody([0xd0, 0x00, 0x1a]),
      'typed references (ref.null of a type in function 2)',
    ],
    [
      'an eqref block type',
      () => withBody([0x02, 0x6d, 0x00, 0x0b]),
      'the GC reference type eqref in a block type of function 2',
    ],
    [
      'a typed select of i31ref',
      () => withBody([0x01, 0x01, 0x41, 0x00, 0x1c, 0x01, 0x6c, 0x1a]),
      'the GC reference type i31ref in function 2',
    ],
    ['an unknown opcode', () => withBody([0x16]), 'an unknown opcode (0x16 in function 2)'],
    [
      'an unknown SIMD opcode',
      () => withBody([0xfd, 0x9a, 0x01]),
      'an unknown opcode (0xfd 0x9a in function 2)',
    ],
    ['an unknown 0xfc opcode', () => withBody([0xfc, 0x12]), 'an unknown opcode (0xfc 0x12 in function 2)'],
  ];
  for (const [what, bytes, feature] of refused) {
    it(`refuses ${what} as invalid_module, naming it`, async () => {
      await expectRefused(bytes(), 'invalid_module', notAccepted(feature));
    });
  }

  it('names the function by its index among imports and definitions, and reads past other bodies first', async () => {
    const bytes = app(
      '(func (result i32) i32.const 1) (func $f return_call $f)',
      { tail_call: true },
      '(import "wasi_snapshot_preview1" "sched_yield" (func (result i32)))',
    );
    await expectRefused(bytes, 'invalid_module', notAccepted('tail calls (return_call in function 4)'));
  });
});

describe('bounds on a body', () => {
  const nested = (depth: number) => [
    ...new Array(depth).fill([0x02, 0x40]).flat(),
    ...new Array(depth).fill(0x0b),
  ];

  // Written byte by byte: wabt takes minutes to assemble a thousand nested blocks.
  it(`accepts blocks nested ${MAX_NESTING} deep, and the engine compiles them`, async () => {
    const inspected = await inspectModuleBytes(withBody(nested(MAX_NESTING)));
    expect(inspected.ok ? inspected.module : inspected.message).toBeInstanceOf(WebAssembly.Module);
  });

  it(`refuses blocks, loops and ifs nested ${MAX_NESTING + 1} deep as instance_too_large`, async () => {
    const refusal = `function 2 nests blocks ${MAX_NESTING + 1} deep; at most ${MAX_NESTING} are accepted`;
    const loop = [...nested(MAX_NESTING).slice(0, 2 * MAX_NESTING), 0x03, 0x40, 0x0b];
    await expectRefused(
      withBody([...loop, ...new Array(MAX_NESTING).fill(0x0b)]),
      'instance_too_large',
      refusal,
    );
    const ifs = new Array(MAX_NESTING + 1).fill([0x41, 0x01, 0x04, 0x40]).flat();
    await expectRefused(
      withBody([...ifs, ...new Array(MAX_NESTING + 1).fill(0x0b)]),
      'instance_too_large',
      refusal,
    );
  });

  it(`refuses a body over ${MAX_BODY_BYTES} bytes as instance_too_large before reading it`, async () => {
    // 2,500,000 nested blocks: 7.5 MB, the module that cost 3 GB at its first call.
    const deep = withBody(nested(2_500_000));
    await expectRefused(
      deep,
      'instance_too_large',
      `function 2 is 7500002 bytes; at most ${MAX_BODY_BYTES} are accepted`,
    );
    expect(capMemory(deep, 16)).toMatchObject({ ok: true }); // the cap leaves bodies to the check before it
    // nop to the bound, with its vector of locals and end: at the bound, then one byte past.
    expect(readModule(withBody(new Uint8Array(MAX_BODY_BYTES - 2).fill(0x01)))).toMatchObject({ ok: true });
    await expectRefused(
      withBody(new Uint8Array(MAX_BODY_BYTES - 1).fill(0x01)),
      'instance_too_large',
      `function 2 is ${MAX_BODY_BYTES + 1} bytes; at most ${MAX_BODY_BYTES} are accepted`,
    );
  });

  it(`refuses more than ${MAX_CODE_BYTES} bytes of code in all as instance_too_large before reading them`, async () => {
    const mib = new Uint8Array(MAX_BODY_BYTES - 2).fill(0x01);
    expect(readModule(withBody(mib, [], 7))).toMatchObject({ ok: true });
    await expectRefused(
      withBody(mib, [], 8),
      'instance_too_large',
      `module has ${8 * (MAX_BODY_BYTES + 3) + 11} bytes of code; at most ${MAX_CODE_BYTES} are accepted`,
    );
  });

  it('refuses a body that ends early or runs past its size as invalid_module', () => {
    expect(readModule(withBody([0x0b, 0x01]))).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'bad module: function 2 ends before the end of its body',
    });
    expect(readModule(withBody([0x41]))).toEqual({
      ok: false,
      code: 'invalid_module',
      message: 'bad module: unexpected end of a function body',
    });
  });
});
