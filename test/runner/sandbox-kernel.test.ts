// The sandbox's Extism kernel called directly: every block and variable counts against the instance's
// budget (a block with a fixed overhead), alloc past it keeps nothing, freed indices are reused, every
// access is checked against its block, the output is the length the module set. And which exports run as
// start code.
import { describe, expect, it } from 'vitest';
import { startCodeOf } from '../../src/runner/threads/instance.js';
import {
  BLOCK_OVERHEAD_BYTES,
  createKernel,
  type KernelImports,
  KernelLimit,
  MAX_BLOCKS,
} from '../../src/runner/threads/kernel.js';

const MiB = 1024 * 1024;
const INDEX = 1n << 48n;

function kernelOf(budgetBytes: number) {
  const kernel = createKernel({ budgetBytes });
  return { kernel, k: kernel.imports };
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
