// Builds the release catalogue from apps/<name>: each app compiled, checked exactly as an upload is
// (inspectUpload) and capped, then apps/build/release.json indexes the modules and their manifests.
// Run by `npm run build`, and so by `npm ci` (prepare); nothing prebuilt is committed.
import fs from 'node:fs/promises';
import path from 'node:path';

const APPS = path.resolve(import.meta.dirname, '../apps');
const OUT = path.join(APPS, 'build');

async function appDirs(): Promise<string[]> {
  const entries = await fs.readdir(APPS, { withFileTypes: true }).catch(() => []);
  const dirs: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === 'build') continue;
    const hasEntry = await fs.access(path.join(APPS, entry.name, 'assembly', 'index.ts')).then(
      () => true,
      () => false,
    );
    if (hasEntry) dirs.push(path.join(APPS, entry.name));
  }
  return dirs.sort();
}

async function main(): Promise<void> {
  await fs.rm(OUT, { recursive: true, force: true });
  await fs.mkdir(OUT, { recursive: true });
  const modules: { file: string; sha256: string; name: string; version: string }[] = [];
  const dirs = await appDirs();
  // The compiler is loaded only when there is something to build.
  const { buildApp } = dirs.length > 0 ? await import('../src/app-cli/compile.ts') : { buildApp: null };
  for (const dir of dirs) {
    if (!buildApp) break;
    const started = Date.now();
    const built = await buildApp(dir, path.join(OUT, 'pending.wasm'));
    const base = `${built.manifest.name}-${built.manifest.version}`;
    await fs.rename(built.path, path.join(OUT, `${base}.wasm`));
    await fs.writeFile(
      path.join(OUT, `${base}.manifest.json`),
      `${JSON.stringify(built.manifest, null, 2)}\n`,
    );
    modules.push({
      file: `${base}.wasm`,
      sha256: built.sha256,
      name: built.manifest.name,
      version: built.manifest.version,
    });
    process.stdout.write(`built ${base} ${built.sha256} (${Date.now() - started} ms)\n`);
  }
  await fs.writeFile(path.join(OUT, 'release.json'), `${JSON.stringify({ modules }, null, 2)}\n`);
  process.stdout.write(`release catalogue: ${modules.length} apps in ${path.relative(process.cwd(), OUT)}\n`);
}

await main();
