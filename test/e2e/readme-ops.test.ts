// The README's "The `ops` command" block, run as printed: every `npx ops …` line in bash, in order, on a
// running platform (the release published, the tenant `acme` made by its token), each exiting 0. A line
// naming an app version the release does not have, a tenant that does not exist or an option the command
// does not take fails here with the line and what `ops` said.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUpProcesses, removeTempDirs, run } from '../support/processes.ts';
import { startReadmeStack } from './readme-stack.ts';
import { commandLines, readmeSection, shellBlocks } from './readme-text.ts';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

const lines = shellBlocks(readmeSection('The `ops` command')).flatMap(commandLines);

describe('README: the ops command', () => {
  it('lists only npx ops lines', () => {
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).toMatch(/^npx ops /);
  });

  it('runs every line as printed, each exiting 0', async () => {
    const stack = await startReadmeStack('acme', 'apps-platform-e2e-readme-ops-');
    // One shell for every line, as a reader pastes them; each line's exit and output marked. The first
    // line goes through npm's own npx (it finds `ops` in node_modules/.bin); the later ones call that same
    // file directly, which spares each line npm's start-up (about a second of CPU) and changes nothing ops does.
    const marked = lines.map(
      (line) => `echo "== ${line.replaceAll('"', '\\"')}"; ${line}; echo "== exit $?"`,
    );
    const sameBin = 'npx() { command=$1; shift; "$PWD/node_modules/.bin/$command" "$@"; }';
    const script = [marked[0], sameBin, ...marked.slice(1)];
    const result = await run([], stack.env, { shell: script.join('\n') });
    const failed = result.stdout
      .split(/^== /m)
      .filter((part) => part.startsWith('exit '))
      .map((part, i) => ({ line: lines[i], exit: part.trim() }))
      .filter((ran) => ran.exit !== 'exit 0');
    expect(failed, result.stderr).toEqual([]);
    expect(result.stdout.match(/^== exit /gm)?.length).toBe(lines.length);
    expect(result.stdout).toContain('withdrawn http-connector@1.0.0');
    expect(result.stdout).toContain('restored http-connector@1.0.0');
  }, 600_000);
});
