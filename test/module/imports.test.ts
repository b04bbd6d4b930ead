// The import policy looks names up in its own lists: a name on Object.prototype (constructor, toString,
// __proto__…) is no host, kernel or WASI function, though the engine would find it on the objects the
// runner links (it looks imports up through the prototype chain).
import { describe, expect, it } from 'vitest';
import { KERNEL_FUNCTIONS, WASI_FUNCTIONS } from '../../src/module/imports.ts';
import { inspectModuleBytes } from '../../src/module/inspect.ts';
import { createKernel } from '../../src/runner/threads/kernel.js';
import { createWasi } from '../../src/runner/threads/wasi.js';
import { appModule } from './wat.ts';

describe('import names', () => {
  const inherited = ['constructor', 'toString', '__proto__', 'hasOwnProperty'];
  const namespaces: [string, string][] = [
    ['extism:host/env', 'is not an Extism kernel function'],
    ['extism:host/user', 'is not a host function of this platform'],
    ['wasi_snapshot_preview1', 'is not a WASI preview 1 function'],
  ];
  for (const [namespace, why] of namespaces) {
    for (const name of inherited) {
      it(`refuses ${namespace} ${name} as forbidden_import`, async () => {
        expect(await inspectModuleBytes(appModule({ imports: [[namespace, name]] }))).toEqual({
          ok: false,
          code: 'forbidden_import',
          message: `forbidden import function ${JSON.stringify(`${namespace}.${name}`)}: ${name} ${why}`,
        });
      });
    }
  }

  it('lists exactly the functions the runner links for the kernel and WASI', () => {
    expect([...KERNEL_FUNCTIONS].sort()).toEqual(
      Object.keys(createKernel({ budgetBytes: 65_536 }).imports).sort(),
    );
    const wasi = createWasi({
      memory: () => undefined,
      clock: { realtimeNs: () => 0n, monotonicNs: () => 0n },
      randomFill: (bytes) => bytes,
      sleep: () => undefined,
    });
    expect([...WASI_FUNCTIONS].sort()).toEqual(Object.keys(wasi).sort());
  });

  it('accepts every kernel and WASI function', async () => {
    const imports = [
      ...KERNEL_FUNCTIONS.map((name) => ['extism:host/env', name] as const),
      ...WASI_FUNCTIONS.map((name) => ['wasi_snapshot_preview1', name] as const),
    ];
    expect(await inspectModuleBytes(appModule({ imports }))).toMatchObject({ ok: true });
  });

  it('refuses a kernel import that is not a function', async () => {
    const global = '(import "extism:host/env" "alloc" (global i32))';
    expect(await inspectModuleBytes(appModule({ imports: [global] }))).toEqual({
      ok: false,
      code: 'forbidden_import',
      message: 'forbidden import global "extism:host/env.alloc": extism:host/env provides only functions',
    });
  });
});

describe('the exported memory', () => {
  const refusal = {
    ok: false,
    code: 'missing_export',
    message: 'module does not export its memory as "memory"; the module must export its memory',
  };
  it('refuses a memory that is not exported: the runner could not measure it', async () => {
    expect(await inspectModuleBytes(appModule({ memory: '(memory 1)' }))).toEqual(refusal);
  });
  it('refuses a memory exported under another name: the runner reads it as memory', async () => {
    expect(await inspectModuleBytes(appModule({ memory: '(memory (export "mem") 1)' }))).toEqual(refusal);
  });
});
