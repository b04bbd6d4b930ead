// The trusted roots (src/provenance/roots.ts): read from files once, a failure tried again next time.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RootsUnavailable, rootLoader } from '../../src/provenance/index.ts';
import { type LocalSigstore, startLocalSigstore } from '../support/sigstore.ts';

let sigstore: LocalSigstore;
let dir: string;
beforeAll(async () => {
  sigstore = await startLocalSigstore();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'roots-'));
});
afterAll(async () => {
  await sigstore?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('rootLoader', () => {
  it('reads every file listed, once', async () => {
    const copy = path.join(dir, 'copy.json');
    await fs.copyFile(sigstore.rootPath, copy);
    const load = rootLoader({ trustedRoots: [sigstore.rootPath, copy], tufCache: dir });
    const roots = await load();
    expect(roots.map((r) => [r.tlogs.length, r.ctlogs.length, r.certificateAuthorities.length])).toEqual([
      [1, 1, 1],
      [1, 1, 1],
    ]);
    await fs.rm(copy);
    expect(await load()).toBe(roots);
  });

  it('a file missing or not JSON: RootsUnavailable, and a later call reads again', async () => {
    const later = path.join(dir, 'later.json');
    const load = rootLoader({ trustedRoots: [later], tufCache: dir });
    await expect(load()).rejects.toBeInstanceOf(RootsUnavailable);
    await fs.writeFile(later, '{"tlogs": [');
    await expect(load()).rejects.toBeInstanceOf(RootsUnavailable);
    await fs.copyFile(sigstore.rootPath, later);
    expect(await load()).toHaveLength(1);
  });
});
