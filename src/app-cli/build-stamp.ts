// What a build was made from, so that `app test <dir>` can reuse an up-to-date build instead of compiling
// again (15 to 25 s). `app build` writes <dir>/build/.build.json beside the module it writes at its default
// place: the module's sha256 and the sha256 of every file the compiler read (the app's sources, the SDK's),
// of every file it looked for and did not find, and of the platform code that compiles and checks a module.
// The build is up to date while all of them are unchanged and the module is the one written.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export const STAMP_FILE = path.join('build', '.build.json');

/** Binaryen's optimize level of a build unless `--optimize` says: the smallest, fastest module. */
export const DEFAULT_OPTIMIZE_LEVEL = 3;

const REPO = path.resolve(import.meta.dirname, '../..');
/** The platform's own code that decides what a build makes of the sources: compiling and checking. */
const TOOLCHAIN = ['package.json', 'node_modules/assemblyscript/package.json', 'src/app-cli/compile.ts'];
const TOOLCHAIN_DIRS = ['src/module', 'src/runner/inspect.ts'];

export interface BuildStamp {
  /** The module written, relative to the app directory when inside it. */
  module: string;
  sha256: string;
  /** Every file the compiler asked for: its sha256, or null when it did not exist. */
  sources: Record<string, string | null>;
  toolchain: string;
  /** Binaryen's optimize level it was built at; absent in stamps written before it was recorded: 3. */
  optimizeLevel?: number;
}

export const sha256Of = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function hashOfFile(file: string): Promise<string | null> {
  return fs.readFile(file).then(sha256Of, () => null);
}

/** Every file under the given repository paths (a file, or a directory's .ts files), sorted. */
async function toolchainFiles(): Promise<string[]> {
  const files = [...TOOLCHAIN];
  for (const entry of TOOLCHAIN_DIRS) {
    if (entry.endsWith('.ts')) files.push(entry);
    else {
      const names = await fs.readdir(path.join(REPO, entry)).catch(() => []);
      files.push(...names.filter((name) => name.endsWith('.ts')).map((name) => `${entry}/${name}`));
    }
  }
  return files.sort();
}

/** One hash of the compiler's version and the platform code that compiles and checks modules. */
export async function toolchainHash(): Promise<string> {
  const parts: string[] = [];
  for (const file of await toolchainFiles()) parts.push(`${file}:${await hashOfFile(path.join(REPO, file))}`);
  return sha256Of(parts.join('\n'));
}

export async function writeStamp(dir: string, stamp: BuildStamp): Promise<void> {
  const file = path.join(dir, STAMP_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${JSON.stringify(stamp, null, 2)}\n`);
}

async function readStamp(dir: string): Promise<BuildStamp | null> {
  const text = await fs.readFile(path.join(dir, STAMP_FILE), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const stamp = JSON.parse(text) as Partial<BuildStamp>;
    const complete =
      typeof stamp.module === 'string' &&
      typeof stamp.sha256 === 'string' &&
      typeof stamp.toolchain === 'string' &&
      typeof stamp.sources === 'object' &&
      stamp.sources !== null;
    return complete ? (stamp as BuildStamp) : null;
  } catch {
    return null;
  }
}

/**
 * The module of <dir>'s last default build, when it was built at `optimizeLevel`, nothing it was made
 * from has changed since and the module is still the one written; else null.
 */
export async function upToDateBuild(
  dir: string,
  optimizeLevel: number,
): Promise<{ path: string; sha256: string } | null> {
  const stamp = await readStamp(dir);
  if (stamp === null || Object.keys(stamp.sources).length === 0) return null;
  if ((stamp.optimizeLevel ?? DEFAULT_OPTIMIZE_LEVEL) !== optimizeLevel) return null;
  const modulePath = path.resolve(dir, stamp.module);
  if ((await hashOfFile(modulePath)) !== stamp.sha256) return null;
  if (stamp.toolchain !== (await toolchainHash())) return null;
  for (const [file, hash] of Object.entries(stamp.sources)) {
    if ((await hashOfFile(path.resolve(dir, file))) !== hash) return null;
  }
  return { path: modulePath, sha256: stamp.sha256 };
}
