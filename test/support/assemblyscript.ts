// Builds AssemblyScript test modules at test time (cached by source hash under node_modules/.cache).
// Replacements make variants of one fixture (another name or version) without another source file; those
// that touch only the manifest are made from one compiled module (fixture-manifest.ts).
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { replaceManifest, variantManifest } from './fixture-manifest.ts';
import { timed } from './profile.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/modules');
const CACHE = path.resolve(import.meta.dirname, '../../node_modules/.cache/apps-platform-fixtures');

export async function buildFixture(
  name: string,
  replacements: Record<string, string> = {},
): Promise<Uint8Array> {
  const [host, source] = (await Promise.all(
    ['host.ts', `${name}.ts`].map((f) => fs.readFile(path.join(FIXTURES, f), 'utf8')),
  )) as [string, string];
  const variant = variantManifest(source, replacements);
  if (variant) {
    const base = await compiled(name, host, variant.base.padded);
    const patched = replaceManifest(base, variant.base.manifest, variant.manifest);
    if (patched) return patched;
  }
  let edited = source;
  for (const [from, to] of Object.entries(replacements)) edited = edited.split(from).join(to);
  return compiled(name, host, edited);
}

/** Compiles under way in this process, by their module's path: variants of one fixture share one. */
const compiling = new Map<string, Promise<void>>();

/** The module built from this source, from the cache when it was built before. */
export async function compiled(name: string, host: string, variant: string): Promise<Uint8Array> {
  const hash = createHash('sha256').update(`${host}\0${variant}`).digest('hex').slice(0, 16);
  const out = path.join(CACHE, `${name}-${hash}.wasm`);
  try {
    return new Uint8Array(await fs.readFile(out));
  } catch {}
  let build = compiling.get(out);
  if (!build) {
    build = timed('compiling', () => compile(name, host, variant, hash, out)).finally(() =>
      compiling.delete(out),
    );
    compiling.set(out, build);
  }
  await build;
  return new Uint8Array(await fs.readFile(out));
}

async function compile(
  name: string,
  host: string,
  variant: string,
  hash: string,
  out: string,
): Promise<void> {
  // Each build in its own folder, renamed into place: test files (other processes) building one fixture at
  // once never read half a module.
  const dir = path.join(CACHE, `src-${name}-${hash}-${process.pid}-${randomUUID()}`);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'host.ts'), host);
  await fs.writeFile(path.join(dir, `${name}.ts`), variant);
  const partial = path.join(dir, 'out.wasm');
  // Loaded only to compile: most files find their modules built, and the compiler takes a second to load.
  const { default: asc } = await import('assemblyscript/asc');
  const { error, stderr } = await asc.main([
    `${name}.ts`,
    '--baseDir',
    dir,
    '--outFile',
    partial,
    '--optimizeLevel',
    '2',
    '--runtime',
    'incremental',
    '--use',
    'abort=host/abortToTrap',
  ]);
  if (error) throw new Error(`building ${name}: ${error.message}\n${stderr.toString()}`);
  await fs.rename(partial, out);
  await fs.rm(dir, { recursive: true, force: true });
}
