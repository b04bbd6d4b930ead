// `--help` of every `ops apps` command (and `ops audit`): exit 0, its arguments and every option described.
import { describe, expect, it } from 'vitest';
import { ops } from '../support/ops.ts';

/** Help needs no database: the command never opens one. */
const NO_DATABASE = 'postgres://unused/unused';

const COMMANDS: readonly [command: string[], args: string[], options: string[]][] = [
  [
    ['apps', 'list'],
    [],
    ['--json', '--tenant', '--platform', '--app', '--status', '--unsigned', '--untrusted', '--signer'],
  ],
  [['apps', 'blocks'], [], ['--json', '--all']],
  [['apps', 'block'], [], ['--json', '--by', '--sha256', '--app', '--tenant', '--platform', '--reason']],
  [['apps', 'unblock'], ['blockId'], ['--json', '--by']],
  [['apps', 'reviews'], [], ['--json', '--all']],
  [['apps', 'review', 'approve'], ['versionId'], ['--json', '--by', '--comment']],
  [['apps', 'review', 'reject'], ['versionId'], ['--json', '--by', '--comment']],
  [['apps', 'versions', 'withdraw'], ['versionId'], ['--json', '--by', '--reason']],
  [['audit'], [], ['--json', '--since', '--action', '--tenant', '--limit']],
];

/** The described entries of a help section: `name  description` lines (a description may wrap). */
function section(help: string, title: string): Map<string, string> {
  const lines = help.split('\n');
  const start = lines.indexOf(`${title}:`);
  const entries = new Map<string, string>();
  if (start < 0) return entries;
  let last = '';
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('  ')) break;
    const entry = /^ {2}(\S.*?)(?: {2,}(\S.*))?$/.exec(line);
    if (entry && !line.startsWith('    ')) {
      last = (entry[1] as string).split(/[ ,]/).find((w) => w.startsWith('--')) ?? (entry[1] as string);
      entries.set(last, entry[2] ?? '');
    } else entries.set(last, `${entries.get(last)} ${line.trim()}`);
  }
  return entries;
}

describe('ops apps --help', () => {
  it.each(COMMANDS)('%j describes its arguments and options', async (command, args, options) => {
    const result = await ops(NO_DATABASE, [...command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: ops ${command.join(' ')} \\[options\\]`));
    const described = section(result.stdout, 'Arguments');
    expect([...described.keys()]).toEqual(args);
    for (const arg of args) expect(described.get(arg)?.length, arg).toBeGreaterThan(10);
    const opts = section(result.stdout, 'Options');
    for (const option of options) expect(opts.get(option)?.length ?? 0, option).toBeGreaterThan(5);
    // The description line under Usage says what the command does.
    expect(result.stdout.split('\n')[2]?.length).toBeGreaterThan(20);
  });

  it('apps --help lists every subcommand', async () => {
    const result = await ops(NO_DATABASE, ['apps', '--help']);
    expect(result.code).toBe(0);
    for (const sub of ['list', 'blocks', 'block', 'unblock', 'reviews', 'review', 'versions'])
      expect(result.stdout).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
  });
});
