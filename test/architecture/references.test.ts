// References a reader can follow: no comment or document sends the reader to a file outside the
// repository (the specification's parts and the design notes are not in it). Where code leans on a rule,
// its comment says the rule, and docs/rules.md maps the rules per area. Fails naming file:line.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What is scanned: the product's sources, the packages, the apps, the benchmarks and the documents. */
const TREES = ['src', 'packages', 'apps', 'bench', 'docs'];
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

/**
 * Lines that still point outside and are code, not comments, which the change that converted the
 * comments did not touch. Remove an entry once its line is fixed (the test says when).
 */
const KNOWN: readonly { file: string; text: string }[] = [
  // The OpenAPI description of the tenant profile's retention settings (a schema string).
  { file: 'src/tenants/routes.ts', text: "'The deployment retention settings (spec part 2 §8.6).'" },
];

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
  for (const file of [...TREES.flatMap(filesUnder), ...FILES]) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line))) hits.push({ at: `${file}:${i + 1}`, file, line });
    });
  }
  return hits;
}

const isKnown = (hit: { file: string; line: string }) =>
  KNOWN.some((known) => hit.file === known.file && hit.line.includes(known.text));

describe('references a reader can follow', () => {
  const hits = outsideReferences();

  it('no comment or document points to a file outside the repository', () => {
    const unknown = hits.filter((hit) => !isKnown(hit)).map((hit) => `${hit.at}: ${hit.line.trim()}`);
    expect(unknown, 'say the rule instead (and map it in docs/rules.md)').toEqual([]);
  });

  it('every known exception is still there (remove an entry once its line is fixed)', () => {
    const stale = KNOWN.filter((known) => !hits.some((hit) => hit.file === known.file && isKnown(hit)));
    expect(stale).toEqual([]);
  });
});
