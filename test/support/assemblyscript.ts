// Builds AssemblyScript test modules at test time (cached by source hash under node_modules/.cache).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import asc from 'assemblyscript/asc';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/modules');
const CACHE = path.resolve(import.meta.dirname, '../../node_modules/.cache/apps-platform-fixtures');

export async function buildFixture(name: string): Promise<Uint8Array> {
  const sources = await Promise.all(
    ['host.ts', `${name}.ts`].map((f) => fs.readFile(path.join(FIXTURES, f), 'utf8')),
  );
  const hash = createHash('sha256').update(sources.join('\0')).digest('hex').slice(0, 16);
  const out = path.join(CACHE, `${name}-${hash}.wasm`);
  try {
    return new Uint8Array(await fs.readFile(out));
  } catch {}
  await fs.mkdir(CACHE, { recursive: true });
  const { error, stderr } = await asc.main([
    `${name}.ts`,
    '--baseDir',
    FIXTURES,
    '--outFile',
    out,
    '--optimizeLevel',
    '2',
    '--runtime',
    'incremental',
    '--use',
    'abort=host/abortToTrap',
  ]);
  if (error) throw new Error(`building ${name}: ${error.message}\n${stderr.toString()}`);
  return new Uint8Array(await fs.readFile(out));
}
