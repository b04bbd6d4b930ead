// The sandbox's Extism kernel called directly: every block and variable counts against the instance's
// budget (a block with a fixed overhead), alloc past it keeps nothing, freed indices are reused, every
// access is checked against its block, the output is the length the module set. And which exports run as
// start code.
import { describe, expect, it } from 'vitest';
import { startCodeOf } from '../../src/runner/threads/instance.js';
import {
  BLOCK_OVERHEAD_BYTES,
  createKernel,
  ERROR_TEXT_BYTES,
  type Kernel,
  type KernelImports,
  KernelLimit,
  MAX_BLOCKS,
  MAX_OUTPUT_BYTES,
  MAX_VARIABLES,
} from '../../src/runner/threads/kernel.js';

const MiB = 1024 * 1024;
const INDEX = 1n << 48n;

function kernelOf(budgetBytes: number) {
  const kernel = createKernel({ budgetBytes });
  return { kernel, k: kernel.imports };
}

/** A kernel whose every import checks, once it returns, that what the kernel counts never went below 0. */
function watchedKernel(budgetBytes: number) {
  const kernel = createKernel({ budgetBytes });
  const k = new Proxy(kernel.imports, {
    get(target, name) {
      const f = Reflect.get(target, name) as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        try {
          return f(...args);
        } finally {
          expect(kernel.usedBytes()).toBeGreaterThanOrEqual(0);
        }
      };
    },
  });
  return { kernel, k };
}

describe('blocks', () => {
  it('alloc answers 0 past the budget and keeps nothing: the index it would have used is reused next', () => {
    const { k } = kernelOf(MiB);
    const first = k.alloc(BigInt(MiB / 2));
    expect(first).toBe(1n * INDEX);
    expect(k.alloc(BigInt(MiB / 2))).toBe(0n); // the overhead of two blocks does not fit
    expect(() => k.store_u8(2n * INDEX, 1)).toThrow(
      new KernelLimit('store_u8 outside any block the module holds'),
    );
    expect(k.alloc(BigInt(MiB / 2 - 2 * BLOCK_OVERHEAD_BYTES))).toBe(2n * INDEX);
  });

  it('a freed block gives back its bytes and its index', () => {
    const { k } = kernelOf(MiB);
    const a = k.alloc(BigInt(MiB - BLOCK_OVERHEAD_BYTES));
    expect(k.alloc(1n)).toBe(0n);
    k.free(a);
    expect(k.length(a)).toBe(0n);
    expect(k.alloc(1n)).toBe(a);
  });

  it('at most MAX_BLOCKS blocks live at once, whatever the budget', () => {
    const { k } = kernelOf(1024 * MiB);
    let count = 0;
    while (k.alloc(0n) !== 0n) count++;
    expect(count).toBe(MAX_BLOCKS);
  });

  it.each([
    ['a negative size', -1n],
    ['a size past 2^53', 2n ** 60n],
  ])('alloc of %s answers 0', (_what, size) => {
    expect(kernelOf(MiB).k.alloc(size)).toBe(0n);
  });

  it.each([
    ['load_u8 at the end', (k: KernelImports) => k.load_u8(INDEX + 8n)],
    ['load_u64 across the end', (k: KernelImports) => k.load_u64(INDEX + 1n)],
    ['store_u64 across the end', (k: KernelImports) => k.store_u64(INDEX + 4n, 1n)],
    ['a block never given', (k: KernelImports) => k.load_u8(9n * INDEX)],
  ])('%s traps', (_what, access) => {
    const { k } = kernelOf(MiB);
    k.alloc(8n);
    expect(() => access(k)).toThrow(KernelLimit);
  });

  it('reads and writes inside a block', () => {
    const { k } = kernelOf(MiB);
    const block = k.alloc(16n);
    k.store_u64(block + 8n, 0x0102030405060708n);
    k.store_u8(block, 300);
    expect(k.load_u8(block)).toBe(300 & 0xff);
    expect(k.load_u64(block + 8n)).toBe(0x0102030405060708n);
  });
});

describe('variables', () => {
  it('count against the same budget; var_set past it traps naming the limit', () => {
    const { k } = kernelOf(4 * MiB);
    const key = k.alloc(1n);
    const value = k.alloc(BigInt(MiB));
    k.var_set(key, value);
    k.store_u8(key, 1);
    k.var_set(key, value);
    k.store_u8(key, 2);
    expect(() => k.var_set(key, value)).toThrow("var_set: the call's memory limit of 4 MiB is reached");
    // Deleting one gives its bytes back.
    k.store_u8(key, 1);
    k.var_set(key, 0n);
    k.store_u8(key, 2);
    k.var_set(key, value);
  });

  it('var_get answers a copy in a new block, or 0', () => {
    const { k } = kernelOf(MiB);
    const key = k.alloc(1n);
    const value = k.alloc(2n);
    k.store_u8(value + 1n, 9);
    k.var_set(key, value);
    const keyAgain = k.alloc(1n);
    const got = k.var_get(keyAgain);
    expect(k.length(got)).toBe(2n);
    expect(k.load_u8(got + 1n)).toBe(9);
  });
});

/** Two key blocks of one decoded name: n U+FFFD (n bytes 0xFF, and a BOM then n truncated sequences). */
const shortSpelling = (n: number) => new Uint8Array(n).fill(0xff);
const longSpelling = (n: number) => {
  const bytes = new Uint8Array(3 + 3 * n).fill(0x80);
  bytes.set([0xef, 0xbb, 0xbf]);
  for (let i = 0; i < n; i++) bytes[3 + 3 * i] = 0xf1;
  return bytes;
};
/** What a variable of a `units`-unit name and a `valueBytes` value is charged. */
const variableCost = (units: number, valueBytes: number) => 2 * units + valueBytes + BLOCK_OVERHEAD_BYTES;

describe('what the kernel counts', () => {
  const N = 1000;
  const V = 100;
  /** Sets (value > 0) or deletes (0) the variable named by `key`, its blocks freed after. */
  const setVar = (kernel: Kernel, k: KernelImports, key: Uint8Array, valueBytes: number) => {
    const keyAt = kernel.store(key);
    const valueAt = valueBytes > 0 ? kernel.store(new Uint8Array(valueBytes)) : 0n;
    k.var_set(keyAt, valueAt);
    k.free(keyAt);
    k.free(valueAt);
  };

  it('the two spellings decode to one name', () => {
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(decode(longSpelling(N))).toBe(decode(shortSpelling(N)));
    expect(decode(shortSpelling(N))).toBe('\ufffd'.repeat(N));
  });

  it.each<[string, (kernel: Kernel, k: KernelImports) => void, number]>([
    [
      'set short, replaced long',
      (kernel, k) => {
        setVar(kernel, k, shortSpelling(N), V);
        setVar(kernel, k, longSpelling(N), V);
      },
      variableCost(N, V),
    ],
    [
      'set long, replaced short',
      (kernel, k) => {
        setVar(kernel, k, longSpelling(N), V);
        setVar(kernel, k, shortSpelling(N), V);
      },
      variableCost(N, V),
    ],
    [
      'set short, deleted long',
      (kernel, k) => {
        setVar(kernel, k, shortSpelling(N), V);
        setVar(kernel, k, longSpelling(N), 0);
      },
      0,
    ],
    [
      'set long, deleted short, deleted again',
      (kernel, k) => {
        setVar(kernel, k, longSpelling(N), V);
        setVar(kernel, k, shortSpelling(N), 0);
        setVar(kernel, k, longSpelling(N), 0);
      },
      0,
    ],
    ['deleting a variable never set', (kernel, k) => setVar(kernel, k, shortSpelling(N), 0), 0],
    [
      'var_get by the other spelling: a copy, its key freed',
      (kernel, k) => {
        setVar(kernel, k, shortSpelling(N), V);
        const got = k.var_get(kernel.store(longSpelling(N)));
        expect(k.length(got)).toBe(BigInt(V));
        k.free(got);
        setVar(kernel, k, longSpelling(N), 0);
      },
      0,
    ],
    [
      'var_get of a name never set, and of no block',
      (kernel, k) => {
        expect(k.var_get(kernel.store(shortSpelling(N)))).toBe(0n);
        expect(k.var_get(7n * INDEX)).toBe(0n);
      },
      0,
    ],
    [
      'config_get frees its key, once',
      (kernel, k) => {
        const key = kernel.store(shortSpelling(N));
        expect(k.config_get(key)).toBe(0n);
        k.free(key);
      },
      0,
    ],
    [
      'a double free, and freeing 0 and a block never given',
      (_kernel, k) => {
        const block = k.alloc(10n);
        k.free(block);
        k.free(block);
        k.free(0n);
        k.free(9n * INDEX);
      },
      0,
    ],
    [
      'a key block freed and its index taken by a block of another size',
      (kernel, k) => {
        const key = kernel.store(shortSpelling(N));
        k.free(key);
        const other = kernel.store(longSpelling(N));
        expect(other).toBe(key);
        const value = k.alloc(BigInt(V));
        k.var_set(other, value);
        k.free(other);
        k.free(value);
        setVar(kernel, k, shortSpelling(N), 0);
      },
      0,
    ],
    [
      'the input block freed: it names nothing after',
      (kernel, k) => {
        kernel.begin(new Uint8Array(50));
        const input = k.input_offset();
        k.free(input);
        k.free(input);
        expect(k.input_length()).toBe(0n);
        expect(() => k.input_load_u8(0n)).toThrow(KernelLimit);
        expect(k.alloc(20n)).toBe(input); // not the input again: a block of its own
        expect(k.input_length()).toBe(0n);
      },
      20 + BLOCK_OVERHEAD_BYTES,
    ],
    [
      'the error and output blocks freed, their indices reused',
      (kernel, k) => {
        const error = kernel.store(new TextEncoder().encode('bad'));
        const out = kernel.store(new Uint8Array(8).fill(1));
        k.error_set(error);
        k.output_set(out, 8n);
        k.free(error);
        k.free(out);
        expect(k.error_get()).toBe(0n);
        const reused = [kernel.store(new Uint8Array(16).fill(2)), kernel.store(new Uint8Array(16).fill(3))];
        expect(reused.sort()).toEqual([error, out].sort());
        expect(kernel.outcome()).toEqual({ output: new Uint8Array() });
      },
      2 * (16 + BLOCK_OVERHEAD_BYTES),
    ],
  ])('%s: never below 0, and what stays counted is what is held', (_what, run, expected) => {
    const { kernel, k } = watchedKernel(16 * MiB);
    run(kernel, k);
    expect(kernel.usedBytes()).toBe(expected);
  });

  it('the row-5 attack: one name set by its short spelling and deleted by its long one, again and again, lifts nothing', () => {
    const { kernel, k } = watchedKernel(16 * MiB);
    const units = 64 * 1024;
    for (let i = 0; i < 20; i++) {
      setVar(kernel, k, shortSpelling(units), 1);
      setVar(kernel, k, longSpelling(units), 0);
    }
    expect(kernel.usedBytes()).toBe(0);
    expect(k.alloc(BigInt(64 * MiB))).toBe(0n);
    expect(k.alloc(BigInt(16 * MiB - BLOCK_OVERHEAD_BYTES))).not.toBe(0n);
  });

  it('a name is charged 2 bytes a UTF-16 unit, whatever its bytes: a BOM-led key of 3n+3 bytes costs 2n', () => {
    const { kernel, k } = watchedKernel(16 * MiB);
    setVar(kernel, k, longSpelling(N), V);
    expect(kernel.usedBytes()).toBe(variableCost(N, V));
  });

  it(`at most ${MAX_VARIABLES} variables at once; replacing one is not one more`, () => {
    const { k } = kernelOf(64 * MiB);
    const value = k.alloc(0n);
    const key = k.alloc(4n);
    for (let i = 0; i < MAX_VARIABLES; i++) {
      // ASCII digits of base 128: every name its own (bytes past 0x7f could decode alike).
      k.store_u8(key, i & 0x7f);
      k.store_u8(key + 1n, (i >> 7) & 0x7f);
      k.store_u8(key + 2n, (i >> 14) + 1);
      k.var_set(key, value);
    }
    k.var_set(key, value);
    k.store_u8(key + 2n, 9);
    expect(() => k.var_set(key, value)).toThrow(`var_set: at most ${MAX_VARIABLES} variables`);
  });
});

describe('input and outcome', () => {
  it('the input counts against the budget: one larger than it cannot begin', () => {
    const { kernel } = kernelOf(1024);
    expect(() => kernel.begin(new Uint8Array(2048))).toThrow(
      'the call input does not fit in the memory limit',
    );
  });

  it('the output is the length the module set, a copy', () => {
    const { kernel, k } = kernelOf(MiB);
    kernel.begin(new TextEncoder().encode('in'));
    expect(k.input_length()).toBe(2n);
    expect(k.input_load_u8(1n)).toBe('n'.charCodeAt(0));
    expect(() => k.input_load_u8(2n)).toThrow('input read past its end');
    const block = k.alloc(4n);
    for (let i = 0; i < 4; i++) k.store_u8(block + BigInt(i), 65 + i);
    k.output_set(block, 3n);
    expect(kernel.outcome()).toEqual({ output: new Uint8Array([65, 66, 67]) });
    expect(() => k.output_set(block, 5n)).toThrow('output_set names no block of that length');
  });

  it('an error set wins over the output', () => {
    const { kernel, k } = kernelOf(MiB);
    const block = kernel.store(new TextEncoder().encode('bad'));
    k.output_set(block, 3n);
    k.error_set(block);
    expect(k.error_get()).toBe(block);
    expect(kernel.outcome()).toEqual({ error: 'bad' });
  });

  it(`an error is decoded from its block's first ${ERROR_TEXT_BYTES} bytes only, a character cut there dropped`, () => {
    const { kernel, k } = kernelOf(4 * MiB);
    const block = k.alloc(BigInt(2 * MiB));
    const start = new TextEncoder().encode('secret-looking: ');
    for (let i = 0; i < start.length; i++) k.store_u8(block + BigInt(i), start[i] as number);
    // é (2 bytes) across the cut.
    k.store_u8(block + BigInt(ERROR_TEXT_BYTES - 1), 0xc3);
    k.store_u8(block + BigInt(ERROR_TEXT_BYTES), 0xa9);
    k.error_set(block);
    const outcome = kernel.outcome() as { error: string };
    expect(outcome.error.startsWith('secret-looking: ')).toBe(true);
    expect(outcome.error).toHaveLength(ERROR_TEXT_BYTES - 1);
    expect(outcome.error).not.toContain('\ufffd');
  });

  it(`an output past ${MAX_OUTPUT_BYTES} bytes is only measured, never copied`, () => {
    const { kernel, k } = kernelOf(4 * MiB);
    const block = k.alloc(BigInt(2 * MiB));
    k.output_set(block, BigInt(MAX_OUTPUT_BYTES));
    expect((kernel.outcome() as { output: Uint8Array }).output).toHaveLength(MAX_OUTPUT_BYTES);
    k.output_set(block, BigInt(MAX_OUTPUT_BYTES + 1));
    expect(kernel.outcome()).toEqual({ outputTooLarge: MAX_OUTPUT_BYTES + 1 });
  });

  it('read answers a block only within the bound asked', () => {
    const { kernel } = kernelOf(MiB);
    const block = kernel.store(new Uint8Array(100));
    expect(kernel.read(block, 99)).toBe('large');
    expect(kernel.read(block, 100)).toHaveLength(100);
    expect(kernel.read(5n * INDEX, 100)).toBeNull();
  });
});

describe('start code', () => {
  it.each([
    [['_initialize', '_start', 'hs_init'], true, ['_initialize', 'hs_init']],
    [['_start'], true, []],
    [['invoke'], true, []],
    [['_initialize', '_start'], false, ['_initialize']],
    [['_start'], false, ['_start']],
    [['hs_init', '_initialize'], false, ['hs_init']],
    [['invoke', 'manifest'], false, []],
  ])('exports %j, WASI %s: runs %j', (exports, usesWasi, expected) => {
    expect(startCodeOf(exports, usesWasi)).toEqual(expected);
  });
});
