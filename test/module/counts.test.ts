// The bounds on what a module declares, read from each section's first bytes: a module past one is
// refused instance_too_large before any entry is read and before the engine sees it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeU32, SECTION } from '../../src/module/binary.ts';
import {
  MAX_CUSTOM_SECTIONS,
  MAX_ELEMENT_SEGMENTS,
  MAX_EXPORTS,
  MAX_FUNCTIONS,
  MAX_IMPORTS,
  MAX_TABLES,
  MAX_TYPES,
} from '../../src/module/counts.ts';
import { checkModuleBytes, inspectModuleBytes, prepareModule } from '../../src/module/inspect.ts';
import { parseManifest } from '../../src/module/manifest.ts';
import { capMemory, readModule } from '../../src/module/wasm.ts';
import { AT_EVERY_BOUND, join, moduleOf, name, section, shapedModule } from './bytes.ts';
import { appModule } from './wat.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

const bounds: [number, string, number][] = [
  [SECTION.type, 'types', MAX_TYPES],
  [SECTION.import, 'imports', MAX_IMPORTS],
  [SECTION.function, 'functions', MAX_FUNCTIONS],
  [SECTION.table, 'tables', MAX_TABLES],
  [SECTION.export, 'exports', MAX_EXPORTS],
  [SECTION.element, 'element segments', MAX_ELEMENT_SEGMENTS],
  [SECTION.code, 'function bodies', MAX_FUNCTIONS],
];

describe('the declared counts', () => {
  it('are the bounds docs/module-contract.md states', () => {
    expect(bounds.map(([, what, max]) => [what, max])).toEqual([
      ['types', 10_000],
      ['imports', 1_000],
      ['functions', 100_000],
      ['tables', 100],
      ['exports', 1_000],
      ['element segments', 1_000],
      ['function bodies', 100_000],
    ]);
    expect(MAX_CUSTOM_SECTIONS).toBe(100);
  });

  for (const [id, what, max] of bounds) {
    it(`refuses ${max + 1} ${what} from the section's count alone, before reading an entry`, () => {
      // The section holds its count and nothing else: reading a single entry would find it malformed.
      const bytes = moduleOf(section(id, encodeU32(max + 1)));
      const refusal = {
        ok: false,
        code: 'instance_too_large',
        message: `module has ${max + 1} ${what}; at most ${max} are accepted`,
      };
      expect(readModule(bytes)).toEqual(refusal);
      expect(capMemory(bytes, 16)).toEqual(refusal);
      // At the bound the count passes (what follows is the entries' or the engine's to judge).
      expect(readModule(moduleOf(section(id, encodeU32(max))))).not.toMatchObject({
        code: 'instance_too_large',
      });
    });
  }

  it('refuses more than 100 custom sections without walking the rest of them', () => {
    const custom = (i: number) => section(SECTION.custom, name(`c${i}`));
    const over = moduleOf(join(Array.from({ length: 20_000 }, (_, i) => custom(i))));
    expect(readModule(over)).toEqual({
      ok: false,
      code: 'instance_too_large',
      message: 'module has more than 100 custom sections; at most 100 are accepted',
    });
    expect(readModule(moduleOf(...Array.from({ length: 100 }, (_, i) => custom(i))))).toMatchObject({
      ok: true,
    });
  });

  it('refuses a module of 1,000 functions exporting each beside its memory (1,001 exports), written in WAT', async () => {
    const names = Array.from({ length: 999 }, (_, i) => `f${i}`);
    const bytes = appModule({ exports: ['manifest', 'invoke', ...names.slice(0, 998)] });
    expect(await inspectModuleBytes(bytes)).toEqual({
      ok: false,
      code: 'instance_too_large',
      message: 'module has 1001 exports; at most 1000 are accepted',
    });
    // One fewer is within the bound.
    expect(
      await inspectModuleBytes(appModule({ exports: ['manifest', 'invoke', ...names.slice(0, 997)] })),
    ).toMatchObject({ ok: true });
  });

  it('accepts a module at every bound at once, and the engine finds it valid', async () => {
    const bytes = shapedModule(AT_EVERY_BOUND);
    const inspected = await inspectModuleBytes(bytes);
    expect(inspected).toMatchObject({ ok: true });
    if (inspected.ok) expect(inspected.exports).toHaveLength(MAX_EXPORTS);
  });
});

describe('refused before compiling', () => {
  const manifest = (() => {
    const parsed = parseManifest({
      interface: 2,
      name: 'fixture',
      version: '1.0.0',
      configSchema: { type: 'object' },
      actions: [{ name: 'a', input: {}, output: {} }],
      memoryMiB: 16,
    });
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.manifest;
  })();

  it('refuses the 1,000,000-export module from its count, and the engine never sees it', async () => {
    const compile = vi.spyOn(WebAssembly, 'compile');
    const bytes = shapedModule({ exports: 1_000_000 });
    const refusal = {
      ok: false,
      code: 'instance_too_large',
      message: 'module has 1000000 exports; at most 1000 are accepted',
    };
    expect(checkModuleBytes(bytes)).toEqual(refusal);
    expect(await inspectModuleBytes(bytes)).toEqual(refusal);
    expect(await prepareModule(bytes, manifest)).toEqual(refusal);
    expect(capMemory(bytes, 16)).toEqual(refusal);
    expect(compile).not.toHaveBeenCalled();
  });

  it('compiles an accepted module once, asynchronously: the original on inspection, the capped one on preparing', async () => {
    const compile = vi.spyOn(WebAssembly, 'compile');
    const bytes = shapedModule({ functions: 10 });
    expect(await inspectModuleBytes(bytes)).toMatchObject({
      ok: true,
      module: expect.any(WebAssembly.Module),
    });
    expect(compile).toHaveBeenCalledTimes(1);
    expect(compile).toHaveBeenLastCalledWith(bytes);
    const prepared = await prepareModule(bytes, manifest);
    if (!prepared.ok) throw new Error(prepared.message);
    expect(compile).toHaveBeenCalledTimes(2);
    expect(compile).toHaveBeenLastCalledWith(prepared.bytes);
  });

  it('answers the engine refusal as invalid_module once the bytes pass every check of their own', async () => {
    // A function body answering nothing where its type promises an i32: well-formed, not valid.
    const bytes = shapedModule({ functions: 1 });
    const broken = Uint8Array.from(bytes);
    const body = broken.lastIndexOf(0x41); // i32.const 0 of the one body becomes nop nop
    broken[body] = 0x01;
    broken[body + 1] = 0x01;
    expect(checkModuleBytes(broken)).toMatchObject({ ok: true });
    expect(await inspectModuleBytes(broken)).toEqual({
      ok: false,
      code: 'invalid_module',
      message: expect.stringMatching(
        /^not valid WebAssembly: WebAssembly\.compile\(\): Compiling function #0/,
      ),
    });
  });
});
