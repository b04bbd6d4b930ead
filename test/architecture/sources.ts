// The repository's code as the architecture tests read it: each file's text and its relative imports,
// resolved to repository paths. Test files are left out (they may reach any inside).
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

const SOURCE = /\.(ts|js|mjs|cjs)$/;
const TEST = /\.test\.ts$/;
/** `from '…'` (imports and re-exports), `import '…'` (side effect) and `import('…')`. */
const SPECIFIER = /(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"\n]+)['"]/g;

export interface Source {
  file: string;
  text: string;
}

/** Every source file under `dirs` (repository paths, `/`-separated), tests aside. */
export function sources(dirs: readonly string[]): Source[] {
  return dirs.flatMap((dir) =>
    fs
      .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((name) => SOURCE.test(name) && !TEST.test(name))
      .map((name) => path.posix.join(dir, name.split(path.sep).join('/')))
      .map((file) => ({ file, text: fs.readFileSync(path.join(ROOT, file), 'utf8') })),
  );
}

/** Each relative import of a file, with the repository path it names. */
export function imports({ file, text }: Source): { specifier: string; target: string }[] {
  return [...text.matchAll(SPECIFIER)]
    .map((match) => match[1] as string)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => ({ specifier, target: path.posix.join(path.posix.dirname(file), specifier) }));
}
