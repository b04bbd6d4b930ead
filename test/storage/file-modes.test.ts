// The filesystem store keeps subjects' documents (and modules) private to the platform's user, whatever
// the umask: the folders it makes are 0700, the files 0600 (as secrets.json beside them). Folders above
// the store (DATA_DIR itself) keep the default modes, as PostgreSQL's own user may need to pass them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createDocumentObjects, createModuleStorage } from '../../src/storage/index.ts';

let dir: string;
let umask: number;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-modes-'));
  // The most permissive umask: every mode the store gets is the one it asks for.
  umask = process.umask(0);
});
afterEach(() => {
  process.umask(umask);
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const modeOf = async (file: string) => (await fs.stat(file)).mode & 0o777;

describe('the filesystem store under a permissive umask', () => {
  it('makes document folders 0700 and document files 0600, and leaves DATA_DIR to the default', async () => {
    const dataDir = path.join(dir, 'data');
    const objects = createDocumentObjects(loadConfig({ DATA_DIR: dataDir }));
    if (!objects) throw new Error('the default settings keep documents on the filesystem');
    const tenantId = '6f1c2a34-0d7e-4c1b-9a55-1b7d2c3e4f50';
    await objects.put(`${tenantId}/doc-1`, new TextEncoder().encode('passport scan'));
    await objects.put(`${tenantId}/doc-2`, new TextEncoder().encode('bank statement'));

    expect(await modeOf(path.join(dataDir, 'documents'))).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'documents', tenantId))).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'documents', tenantId, 'doc-1'))).toBe(0o600);
    expect(await modeOf(path.join(dataDir, 'documents', tenantId, 'doc-2'))).toBe(0o600);
    // No partial file is left beside them.
    expect(await fs.readdir(path.join(dataDir, 'documents', tenantId))).toEqual(['doc-1', 'doc-2']);
    expect(await modeOf(dataDir)).toBe(0o777);
  });

  it('replaces a document with a private file too', async () => {
    const dataDir = path.join(dir, 'replaced');
    const objects = createDocumentObjects(loadConfig({ DATA_DIR: dataDir }));
    if (!objects) throw new Error('the default settings keep documents on the filesystem');
    await objects.put('t/d', new TextEncoder().encode('first'));
    await objects.put('t/d', new TextEncoder().encode('second'));
    expect(await modeOf(path.join(dataDir, 'documents', 't', 'd'))).toBe(0o600);
    expect(new TextDecoder().decode((await objects.get('t/d')) ?? undefined)).toBe('second');
  });

  it('makes the module folder 0700 and module files 0600', async () => {
    const dataDir = path.join(dir, 'modules-data');
    const storage = createModuleStorage(loadConfig({ DATA_DIR: dataDir }));
    if (!storage) throw new Error('the default settings keep modules on the filesystem');
    const sha256 = await storage.put(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    expect(await modeOf(path.join(dataDir, 'modules'))).toBe(0o700);
    expect(await modeOf(path.join(dataDir, 'modules', `${sha256}.wasm`))).toBe(0o600);
  });
});
