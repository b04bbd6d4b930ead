// Builds AssemblyScript test modules at test time (cached by source hash under node_modules/.cache).
// Replacements make variants of one fixture (another name or version) without another source file.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import asc from 'assemblyscript/asc';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/modules');
const CACHE = path.resolve(import.meta.dirname, '../../node_modules/.cache/apps-platform-fixtures');

export async function buildFixture(
  name: string,
  replacements: Record<string, string> = {},
): Promise<Uint8Array> {
  const [host, source] = await Promise.all(
    ['host.ts', `${name}.ts`].map((f) => fs.readFile(path.join(FIXTURES, f), 'utf8')),
  );
  let variant = source as string;
  for (const [from, to] of Object.entries(replacements)) variant = variant.split(from).join(to);
  const hash = createHash('sha256').update(`${host}\0${variant}`).digest('hex').slice(0, 16);
  const out = path.join(CACHE, `${name}-${hash}.wasm`);
  try {
    return new Uint8Array(await fs.readFile(out));
  } catch {}
  // Each build in its own folder, renamed into place: test files building one fixture at once never
  // read half a module.
  const dir = path.join(CACHE, `src-${name}-${hash}-${process.pid}`);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'host.ts'), host as string);
  await fs.writeFile(path.join(dir, `${name}.ts`), variant);
  const partial = path.join(dir, 'out.wasm');
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
  return new Uint8Array(await fs.readFile(out));
}
