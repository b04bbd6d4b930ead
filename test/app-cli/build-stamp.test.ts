// When `app test <dir>` may reuse the last build: the stamp `app build` leaves beside the module names
// every file the compiler read or looked for, the module's sha256 and the toolchain's; any change to one
// of them (or a stamp that is missing or not one) means building again.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  STAMP_FILE,
  sha256Of,
  toolchainHash,
  upToDateBuild,
  writeStamp,
} from '../../src/app-cli/build-stamp.ts';

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'build-stamp-'));
afterAll(async () => fs.rm(work, { recursive: true, force: true }));

const SOURCE = 'export function invoke(): i32 { return 0; }\n';
const MODULE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
let dir: string;
let shared: string;

/** An app dir built once: its source, a file outside it the compiler read, one it looked for in vain. */
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(work, 'app-'));
  shared = path.join(work, `${path.basename(dir)}-sdk.ts`);
  await fs.mkdir(path.join(dir, 'assembly'), { recursive: true });
  await fs.mkdir(path.join(dir, 'build'), { recursive: true });
  await fs.writeFile(path.join(dir, 'assembly/index.ts'), SOURCE);
  await fs.writeFile(shared, 'export const sdk = 1;\n');
  await fs.writeFile(path.join(dir, 'build/app-0.1.0.wasm'), MODULE);
  await writeStamp(dir, {
    module: 'build/app-0.1.0.wasm',
    sha256: sha256Of(MODULE),
    sources: {
      'assembly/index.ts': sha256Of(SOURCE),
      [shared]: sha256Of('export const sdk = 1;\n'),
      'assembly/index.d.ts': null,
    },
    toolchain: await toolchainHash(),
  });
});

describe('upToDateBuild', () => {
  it('answers the module while nothing changed (a stamp without a level was built at 3)', async () => {
    expect(await upToDateBuild(dir, 3)).toEqual({
      path: path.join(dir, 'build/app-0.1.0.wasm'),
      sha256: sha256Of(MODULE),
    });
  });

  it.each([
    ['a source of the app edited', () => fs.appendFile(path.join(dir, 'assembly/index.ts'), '// edit\n')],
    ['a source of the app removed', () => fs.rm(path.join(dir, 'assembly/index.ts'))],
    ['a file outside the app the compiler read (the SDK) edited', () => fs.appendFile(shared, '// edit\n')],
    [
      'a file the compiler looked for in vain now present',
      () => fs.writeFile(path.join(dir, 'assembly/index.d.ts'), 'declare const x: i32;\n'),
    ],
    [
      'the module overwritten',
      () =>
        fs.writeFile(path.join(dir, 'build/app-0.1.0.wasm'), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 1])),
    ],
    ['the module removed', () => fs.rm(path.join(dir, 'build/app-0.1.0.wasm'))],
    ['the stamp removed', () => fs.rm(path.join(dir, STAMP_FILE))],
    ['the stamp not JSON', () => fs.writeFile(path.join(dir, STAMP_FILE), '{')],
    [
      'the stamp of another toolchain',
      async () => {
        const stamp = JSON.parse(await fs.readFile(path.join(dir, STAMP_FILE), 'utf8'));
        await fs.writeFile(path.join(dir, STAMP_FILE), JSON.stringify({ ...stamp, toolchain: 'older' }));
      },
    ],
    [
      'the stamp naming no source',
      async () => {
        const stamp = JSON.parse(await fs.readFile(path.join(dir, STAMP_FILE), 'utf8'));
        await fs.writeFile(path.join(dir, STAMP_FILE), JSON.stringify({ ...stamp, sources: {} }));
      },
    ],
  ])('answers null after %s', async (_what, change) => {
    await change();
    expect(await upToDateBuild(dir, 3)).toBeNull();
  });

  it('answers the build made at the level asked for, and null for another level', async () => {
    const stamp = JSON.parse(await fs.readFile(path.join(dir, STAMP_FILE), 'utf8'));
    await fs.writeFile(path.join(dir, STAMP_FILE), JSON.stringify({ ...stamp, optimizeLevel: 0 }));
    expect(await upToDateBuild(dir, 0)).toMatchObject({ sha256: sha256Of(MODULE) });
    expect(await upToDateBuild(dir, 3)).toBeNull();
  });

  it('answers null for a directory never built', async () => {
    expect(await upToDateBuild(path.join(work, 'never-built'), 3)).toBeNull();
  });
});
