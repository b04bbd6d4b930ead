// Sandbox instances made directly (instance.js), no thread: what a module links to (import objects
// without prototypes: `constructor`, `toString`… link to nothing) and what an instance is counted as
// holding (its memory found whatever its export name).
import { describe, expect, it } from 'vitest';
import { heldBytes, instantiate } from '../../src/runner/threads/instance.js';
import { BLOCK_OVERHEAD_BYTES, createKernel } from '../../src/runner/threads/kernel.js';
import { wat } from '../module/wat.ts';

const MiB = 1024 * 1024;

describe('instances', () => {
  const host = { refusals: { log: '{}' }, limits: { log: 16 }, maxRequests: 1, ask: () => '{}' };
  const instanceOf = (text: string, maxPages = 16) =>
    instantiate({ module: new WebAssembly.Module(wat(text)), maxPages }, host);

  it.each([
    ['extism:host/env', 'constructor'],
    ['extism:host/env', 'toString'],
    ['extism:host/user', 'hasOwnProperty'],
    ['wasi_snapshot_preview1', 'valueOf'],
    ['constructor', 'assign'],
    ['toString', 'call'],
  ])('an import of %s %s finds no JavaScript function: the instance does not link', (namespace, name) => {
    // A LinkError (no such function), or a TypeError where the namespace itself is missing.
    expect(() => instanceOf(`(module (import "${namespace}" "${name}" (func)))`)).toThrow(
      /^WebAssembly\.Instance\(\): Import #0 /,
    );
  });

  it('the memory a module exports under any name is what it holds', () => {
    const grown = instanceOf(
      `(module (memory (export "mem") 1 4096)
         (func (export "_initialize") (drop (memory.grow (i32.const 4095)))))`,
      4096,
    );
    expect(heldBytes(grown)).toBe(4096 * 65_536);
  });

  it('a memory not exported counts as grown to its maximum', () => {
    expect(heldBytes(instanceOf('(module (memory 1 100))', 100))).toBe(100 * 65_536);
  });
});

describe('a finished instance', () => {
  it('frees its kernel blocks and variables at once, leaving a collection only what was freed before', () => {
    const kernel = createKernel({ budgetBytes: 16 * MiB });
    const k = kernel.imports;
    const kept = k.alloc(BigInt(MiB));
    k.free(k.alloc(1000n));
    const value = k.alloc(10n);
    k.var_set(k.alloc(1n), value);
    const keptBytes = kernel.read(kept, 2 * MiB) as Uint8Array;
    const valueBytes = kernel.read(value, 2 * MiB) as Uint8Array;
    expect([keptBytes.byteLength, valueBytes.byteLength]).toEqual([MiB, 10]);
    expect(kernel.dispose()).toBe(1000 + BLOCK_OVERHEAD_BYTES);
    // Detached: their memory went back when dispose returned.
    expect([keptBytes.byteLength, valueBytes.byteLength]).toEqual([0, 0]);
    expect(k.var_get(k.alloc(1n))).toBe(0n);
  });
});
