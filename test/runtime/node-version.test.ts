// The platform ships on Node.js 24 LTS (20 reached end of life on 2026-04-30). Machines may still carry an
// older system node, so the project brings its own through the `node` dev dependency, which npm scripts
// and npx put first on PATH: these tests pin that down, for the suite itself and for what `npm start` runs.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/**
 * The packages of the lockfile npm checks against the node running it (it skips optional ones) that ask
 * for a node other than `version`: under that node `npm ci` warns EBADENGINE once for each.
 */
async function warnedUnder(version: string): Promise<string[]> {
  const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'));
  return Object.entries(lock.packages as Record<string, { engines?: { node?: string }; optional?: boolean }>)
    .filter(([, entry]) => !entry.optional && entry.engines?.node !== undefined)
    .filter(([, entry]) => !semver.satisfies(version, entry.engines?.node as string))
    .map(([at]) => at || 'apps-platform');
}

async function enginesNode(): Promise<string> {
  const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  return manifest.engines.node;
}

describe('the Node.js runtime', () => {
  it('package.json asks for Node 24 or newer', async () => {
    expect(semver.minVersion(await enginesNode())?.major).toBe(24);
  });

  it('runs the suite on a Node that package.json allows', async () => {
    expect(semver.satisfies(process.version, await enginesNode())).toBe(true);
  });

  it('brings the node that npm scripts and npx run, whatever the system carries', async () => {
    const bundled = path.join(ROOT, 'node_modules', '.bin', 'node');
    const { stdout } = await run(bundled, ['--version']);
    expect(stdout.trim()).toMatch(/^v24\./);
    expect(semver.satisfies(stdout.trim(), await enginesNode())).toBe(true);
  });

  it('the README says truthfully which packages npm warns about under a system Node 20, and that Node 24 has none', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const note = /npm then warns `EBADENGINE`[^.]*\./.exec(readme.replace(/\s+/g, ' '))?.[0] ?? '';
    const warned = await warnedUnder('20.19.0');
    expect(note).toContain(`for the ${warned.length} packages`);
    for (const family of ['vitest', '@opentelemetry/', '@sigstore/']) {
      expect(warned.some((at) => at.includes(family))).toBe(true);
    }
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    expect(await warnedUnder(manifest.devDependencies.node)).toEqual([]);
    expect(readme.replace(/\s+/g, ' ')).toContain('Under a system Node 24 npm warns about none.');
  });
});
