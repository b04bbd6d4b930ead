// Paths a reader can follow: every repository path the documents name (`src/…`, `test/…`, `docs/…` and
// the other top folders; a `*` or `{a,b}` in one is a glob that must match a file) exists, so a file moved
// or removed without its documents fails here, naming the document and line.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The documents read: every page under docs/ and the README. */
const DOCUMENTS = [
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'README.md',
];

/**
 * A path of the repository: it starts at one of the tracked top folders and stands on its own (not the end
 * of a route such as `/apps/health`, nor of `/usr/bin/chromium`, nor inside `pages/apps/…`).
 */
const REPOSITORY_PATH =
  /(?<![\w./@~-])(?:\.ci|apps|bench|bin|console|docs|packages|scripts|src|test)\/[\w.*{},/-]*[\w*}/]/g;

/** Paths named on purpose that the repository does not hold, each with why. */
const NOT_IN_THE_REPOSITORY: readonly { path: string | RegExp; why: string }[] = [
  { path: /^apps\/build\//, why: 'what `npm run build` makes (git ignores it)' },
  { path: 'test/app.test.ts', why: 'a file of an app’s own project, which `app new` writes' },
  { path: 'test/conformance.ts', why: 'a file of an app’s own project, which the author writes' },
];

const expected = (named: string) =>
  NOT_IN_THE_REPOSITORY.some((allowed) =>
    typeof allowed.path === 'string' ? allowed.path === named : allowed.path.test(named),
  );

function exists(named: string): boolean {
  if (/[*{]/.test(named)) return fs.globSync(named, { cwd: ROOT }).length > 0;
  return fs.existsSync(path.join(ROOT, named));
}

/** Every path a document names that is not there, as `document:line: path`. */
function missingPaths(): string[] {
  const missing: string[] = [];
  for (const document of DOCUMENTS) {
    const lines = fs.readFileSync(path.join(ROOT, document), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [named] of line.matchAll(REPOSITORY_PATH)) {
        if (!expected(named) && !exists(named)) missing.push(`${document}:${i + 1}: ${named}`);
      }
    });
  }
  return missing;
}

describe('paths the documents name', () => {
  it('every repository path in docs/ and the README exists', () => {
    expect(missingPaths(), 'update the document where a file moved').toEqual([]);
  });

  it('finds paths the way a reader would, and only those', () => {
    const line =
      'see `src/runner/egress/hosts.ts` and test/worker/queue-wake*.test.ts, not GET /apps/health, ' +
      '/usr/bin/chromium or pages/apps/app-rules.ts.';
    expect([...line.matchAll(REPOSITORY_PATH)].map(([named]) => named)).toEqual([
      'src/runner/egress/hosts.ts',
      'test/worker/queue-wake*.test.ts',
    ]);
    expect(exists('src/runner/egress/hosts.ts')).toBe(true);
    expect(exists('test/worker/queue-wake*.test.ts')).toBe(true);
    expect(exists('src/runner/egress/no-such-file.ts')).toBe(false);
  });
});
