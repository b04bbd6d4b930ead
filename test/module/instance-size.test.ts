// The bounds on what sizes an instance besides its memory: tables (counted against memoryMiB too),
// globals, element and data segments. Refused before the module ever runs.
import { describe, expect, it } from 'vitest';
import { inspectModuleBytes } from '../../src/module/inspect.ts';
import {
  MAX_DATA_SEGMENTS,
  MAX_ELEMENT_ENTRIES,
  MAX_GLOBALS,
  MAX_TABLE_ENTRIES,
} from '../../src/module/instance-size.ts';
import { capMemory, readModule } from '../../src/module/wasm.ts';
import { appModule, wat } from './wat.ts';

const sizeOf = (bytes: Uint8Array) => {
  const read = readModule(bytes);
  if (!read.ok) throw new Error(read.message);
  return read.instanceSize;
};

const repeat = (times: number, text: string) => Array.from({ length: times }, () => text).join(' ');

describe('readModule: instance size', () => {
  it('counts tables at their maximum, globals, element entries of every segment form and data segments', () => {
    const bytes = wat(
      `(module
        (memory 1)
        (table $t 2 5 funcref)
        (table $u 1 3 externref)
        (global i32 (i32.const 1)) (global (mut i64) (i64.const 2)) (global f64 (f64.const 3))
        (func $f) (func $g)
        (elem (i32.const 0) $f $g)
        (elem func $f)
        (elem (table $t) (i32.const 1) func $g)
        (elem declare func $f)
        (elem (i32.const 0) funcref (ref.func $f) (ref.null func))
        (elem funcref (ref.func $g))
        (elem (table $u) (i32.const 0) externref (ref.null extern))
        (data (i32.const 0) "a") (data "bc"))`,
      { reference_types: true, bulk_memory: true },
    );
    expect(sizeOf(bytes)).toEqual({ tableEntries: 8, globals: 3, elementEntries: 9, dataSegments: 2 });
    expect(sizeOf(appModule()).tableEntries).toBe(0);
    // A table without a maximum could grow at run time: it has no bound to count.
    expect(sizeOf(wat('(module (table 1 funcref))')).tableEntries).toBeNull();
  });
});

describe('inspectModuleBytes and capMemory: the bounds', () => {
  const withTable = (limits: string) => appModule({ extra: `(table ${limits} funcref)` });

  it('refuses a table of 10,000,000 entries without a maximum, and one whose maximum is past the bound', async () => {
    for (const limits of [
      '10000000',
      '1',
      `1 ${MAX_TABLE_ENTRIES + 1}`,
      `${MAX_TABLE_ENTRIES + 1} ${MAX_TABLE_ENTRIES + 1}`,
    ]) {
      const refused = await inspectModuleBytes(withTable(limits));
      expect(refused, limits).toMatchObject({ ok: false, code: 'table_too_large' });
      expect(capMemory(withTable(limits), 256), limits).toMatchObject({ ok: false, code: 'table_too_large' });
    }
    expect(await inspectModuleBytes(withTable('10000000'))).toMatchObject({
      message: expect.stringMatching(/table without a maximum/),
    });
    const twoTables = appModule({ extra: `(table 60000 60000 funcref) (table 50000 50000 externref)` });
    expect(await inspectModuleBytes(twoTables)).toMatchObject({
      code: 'table_too_large',
      message: `module tables hold up to 110000 entries; at most ${MAX_TABLE_ENTRIES} are accepted`,
    });
  });

  it('accepts tables at the bound, and counts them against memoryMiB (64 bytes an entry)', async () => {
    const atBound = withTable(`${MAX_TABLE_ENTRIES} ${MAX_TABLE_ENTRIES}`);
    expect(await inspectModuleBytes(atBound)).toMatchObject({ ok: true });
    // 100,000 entries are 6,400,000 bytes: with the memory's one page they need 7 MiB.
    expect(capMemory(atBound, 6)).toMatchObject({
      ok: false,
      code: 'table_too_large',
      message:
        "module tables (100000 entries, counted as 6250 KiB) and its memory's start of 1 pages need more than memoryMiB 6",
    });
    expect(capMemory(atBound, 7)).toMatchObject({ ok: true });
  });

  it('refuses too many globals, element entries or data segments as instance_too_large', async () => {
    const cases: [string, string, number][] = [
      ['globals', repeat(MAX_GLOBALS + 1, '(global i32 (i32.const 0))'), MAX_GLOBALS],
      [
        'element segment entries',
        `(func $f) (elem func ${repeat(MAX_ELEMENT_ENTRIES + 1, '$f')})`,
        MAX_ELEMENT_ENTRIES,
      ],
      ['data segments', repeat(MAX_DATA_SEGMENTS + 1, '(data "")'), MAX_DATA_SEGMENTS],
    ];
    for (const [what, extra, max] of cases) {
      expect(await inspectModuleBytes(appModule({ extra })), what).toEqual({
        ok: false,
        code: 'instance_too_large',
        message: `module has ${max + 1} ${what}; at most ${max} are accepted`,
      });
    }
    const atBounds = appModule({
      extra: `${repeat(MAX_GLOBALS, '(global i32 (i32.const 0))')} ${repeat(MAX_DATA_SEGMENTS, '(data "")')}`,
    });
    expect(await inspectModuleBytes(atBounds)).toMatchObject({ ok: true });
  });
});
