// Fixture variants made by rewriting the manifest in a compiled module answer what a compiled variant
// answers; variants that touch anything else are compiled.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadApp } from '../../packages/app-testing/src/index.ts';
import { buildFixture, compiled } from './assemblyscript.ts';
import { MANIFEST_ROOM, padManifest, replaceManifest, variantManifest } from './fixture-manifest.ts';

const SOURCE =
  'const A = 1;\nconst MANIFEST = `{"interface":2,"name":"echo","version":"1.0.0"}`;\nconst B = "1.0.0";\n';

describe('variantManifest', () => {
  it.each([
    ['no replacement', {}, '{"interface":2,"name":"echo","version":"1.0.0"}'],
    ['the name', { '"name":"echo"': '"name":"other"' }, '{"interface":2,"name":"other","version":"1.0.0"}'],
    [
      'two keys',
      { '"name":"echo"': '"name":"x"', '"interface":2,': '"interface":2,"a":1,' },
      '{"interface":2,"a":1,"name":"x","version":"1.0.0"}',
    ],
  ])('patches %s', (_, replacements, manifest) => {
    const variant = variantManifest(SOURCE, replacements);
    expect(variant?.manifest.trimEnd()).toBe(manifest);
    expect(variant?.manifest.length).toBe(variant?.base.manifest.length);
  });

  it.each([
    ['text outside the manifest', { 'const A = 1;': 'const A = 2;' }],
    ['text found in the manifest and outside it', { '"1.0.0"': '"2.0.0"' }],
    ['text not in the source at all', { nowhere: 'x' }],
    ['a manifest grown past the room', { '"name":"echo"': `"name":"${'x'.repeat(MANIFEST_ROOM + 10)}"` }],
    ['a template substitution', { '"name":"echo"': '"name":"$x"' }],
  ])('compiles for %s', (_, replacements) => {
    expect(variantManifest(SOURCE, replacements)).toBeNull();
  });

  it('finds no manifest in a source without one', () => {
    expect(padManifest('export function manifest(): i32 { return 0; }')).toBeNull();
  });
});

describe('replaceManifest', () => {
  const module = new Uint8Array(
    Buffer.concat([Buffer.from([0, 97, 115, 109]), Buffer.from('{"a":1}  ', 'utf16le')]),
  );
  it('swaps equal lengths of UTF-16 code units in place', () => {
    const patched = replaceManifest(module, '{"a":1}  ', '{"b":22} ') as Uint8Array;
    expect(Buffer.from(patched.subarray(4)).toString('utf16le')).toBe('{"b":22} ');
    expect(patched.length).toBe(module.length);
  });
  it('refuses another length, a text it cannot find, or one found twice', () => {
    expect(replaceManifest(module, '{"a":1}  ', '{"a":1}')).toBeNull();
    expect(replaceManifest(module, '{"z":1}  ', '{"a":1}  ')).toBeNull();
    const twice = new Uint8Array(Buffer.concat([module, Buffer.from('{"a":1}  ', 'utf16le')]));
    expect(replaceManifest(twice, '{"a":1}  ', '{"b":1}  ')).toBeNull();
  });
});

describe('a patched echo fixture', () => {
  it('answers the manifest and the calls a compiled variant answers', async () => {
    const replacements = { '"name":"echo","version":"1.0.0"': '"name":"renamed","version":"2.3.4"' };
    const patched = await buildFixture('echo', replacements);
    const fixtures = path.resolve(import.meta.dirname, '../fixtures/modules');
    const [host, source] = await Promise.all(
      ['host.ts', 'echo.ts'].map((file) => fs.readFile(path.join(fixtures, file), 'utf8')),
    );
    const variant = variantManifest(source as string, replacements);
    if (!variant) throw new Error('echo has a manifest literal');
    // Byte for byte the module a compile of the edited source makes.
    const edited = variant.base.padded.replace(variant.base.manifest, () => variant.manifest);
    expect(Buffer.from(patched).equals(Buffer.from(await compiled('echo', host as string, edited)))).toBe(
      true,
    );
    const apps = await Promise.all([patched, await buildFixture('echo')].map((bytes) => loadApp(bytes)));
    try {
      expect(apps[0]?.manifest).toMatchObject({ name: 'renamed', version: '2.3.4' });
      expect(apps[1]?.manifest).toMatchObject({ name: 'echo', version: '1.0.0' });
      const { answer } = await (apps[0] as NonNullable<(typeof apps)[0]>).invoke('echo', { n: 1 });
      expect(answer).toMatchObject({ status: 'ok', output: { envelope: { input: { n: 1 } } } });
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
