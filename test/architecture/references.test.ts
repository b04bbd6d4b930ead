// References a reader can follow: no comment or document sends the reader to a file outside the
// repository (the specification's parts and the design notes are not in it). Where code leans on a rule,
// its comment says the rule, and docs/rules.md maps the rules per area. Fails naming file:line.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What is scanned: the product's sources, the packages, the apps, the benchmarks, the tests and the documents. */
const TREES = ['src', 'packages', 'apps', 'bench', 'test', 'docs'];
const FILES = ['README.md'];
const TEXT = /\.(ts|js|mjs|md)$/;
const SKIPPED = new Set(['node_modules', 'build', 'dist']);

/** Ways of pointing outside the repository; an RFC's section (`RFC 9110 §5.6.7`) is public and fine. */
const OUTSIDE: readonly RegExp[] = [
  /spec part/i,
  /(?<!RFC \d{3,5} )§/,
  /DESIGN\.md/,
  /STYLE\.md/,
  /\.\.\/shared\//,
];

/** This file names the patterns it looks for. */
const THIS_FILE = 'test/architecture/references.test.ts';

function filesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) found.push(...filesUnder(relative));
    } else if (entry.isFile() && TEXT.test(entry.name)) {
      found.push(relative);
    }
  }
  return found;
}

/** Every line pointing outside the repository, as `file:line: text`. */
function outsideReferences(): { at: string; file: string; line: string }[] {
  const hits: { at: string; file: string; line: string }[] = [];
  for (const file of [...TREES.flatMap(filesUnder), ...FILES].filter((file) => file !== THIS_FILE)) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line))) hits.push({ at: `${file}:${i + 1}`, file, line });
    });
  }
  return hits;
}

describe('references a reader can follow', () => {
  it('no comment, test name or document points to a file outside the repository', () => {
    const found = outsideReferences().map((hit) => `${hit.at}: ${hit.line.trim()}`);
    expect(found, 'say the rule instead (and map it in docs/rules.md)').toEqual([]);
  });
});
