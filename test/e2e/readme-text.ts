// The README as a walkthrough test reads it: a section by its heading, its `sh` blocks, the settings of its
// `npm start` line, and the helpers "Try an app" defines (`API`, `call`, `show`), so a test runs what the
// README prints rather than a copy of it that could drift.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/processes.ts';

export const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/**
 * The text under a `## ` or `### ` heading that starts with `heading`, to the next heading of its level or
 * above (a `# comment` inside a code block is no heading).
 */
export function readmeSection(heading: string, readme = README): string {
  const lines = readme.split('\n');
  let fenced = false;
  const levels = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return fenced ? 0 : (/^(#+) /.exec(line)?.[1]?.length ?? 0);
  });
  const at = lines.findIndex((line, i) => levels[i] && line.replace(/^#+ /, '').startsWith(heading));
  if (at < 0) throw new Error(`README has no section "${heading}"`);
  const level = levels[at] as number;
  const end = levels.findIndex((l, i) => i > at && l > 0 && l <= level);
  return lines.slice(at, end < 0 ? undefined : end).join('\n');
}

/** The `sh` code blocks of a text, in order, each without its fences. */
export function shellBlocks(text: string): string[] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

/** A block's lines with their `\` continuations joined, comments after `  #` dropped. */
export function commandLines(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+# .*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The `NAME=value` settings before `npm start` on a block's start line (quotes taken off). */
export function startSettings(block: string): Record<string, string> {
  const line = commandLines(block).find((l) => l.endsWith('npm start'));
  if (line === undefined) throw new Error(`no npm start line in:\n${block}`);
  const settings: Record<string, string> = {};
  for (const match of line.matchAll(/([A-Z][A-Z0-9_]*)=('[^']*'|\S+)/g)) {
    settings[match[1] as string] = (match[2] as string).replace(/^'(.*)'$/, '$1');
  }
  return settings;
}

/** "Try an app"'s `API=…`, `call() {…}` and `show() {…}` lines, as a shell defines them. */
export function tryAnAppHelpers(readme = README): string {
  const block = shellBlocks(readmeSection('Try an app', readme)).join('\n');
  const lines = block.split('\n').filter((line) => /^(API=|call\(\) \{|show\(\) \{)/.test(line));
  if (lines.length !== 3) throw new Error(`"Try an app" defines API, call and show: found ${lines.length}`);
  return lines.join('\n');
}
