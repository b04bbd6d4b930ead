// Every `ops platform` and `ops tenants` subcommand's --help: exit 0, what it does, each argument and
// option described, and an example (no database is opened for help).
import { describe, expect, it } from 'vitest';
import { ops } from '../support/ops.ts';

const NO_DATABASE = 'postgres://unused:unused@127.0.0.1:1/unused';

describe('ops platform and ops tenants --help', () => {
  it.each([
    ['platform', 'list', ['--app <name>', '--status <status>', '--source <source>', '--json']],
    ['platform', 'publish', ['<module>', '--new-app', '--bundle <file>', '--by <name>', 'Examples:']],
    ['platform', 'withdraw', ['<name@version>', '--reason <text>', '--by <name>', 'Example:']],
    ['platform', 'restore', ['<name@version>', '--by <name>', 'RELEASE_INDEX', 'Example:']],
    ['tenants', 'review', ['<tenant>', '<state>', 'choices: "on", "off"', '--by <name>', 'Example:']],
    ['tenants', 'quota', ['<metric>', '<period>', '<max>', 'none', '--by <name>', 'Examples:']],
    ['tenants', 'usage', ['[tenant]', '--month <YYYY-MM>', 'GET /apps/metering', 'Examples:']],
  ])('%s %s', async (group, command, mentions) => {
    const result = await ops(NO_DATABASE, [group, command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: ops ${group} ${command} `));
    for (const mention of mentions) expect(result.stdout).toContain(mention);
    // Every argument and option line says what it is.
    const described = result.stdout
      .split('\n')
      .filter((line) => /^ {2}(<|\[|-|[a-z])/.test(line) && !line.startsWith('  ops '));
    for (const line of described) expect(line.trim(), line).toMatch(/\S {2,}\S/);
  });

  it.each([
    ['platform', ['list', 'publish', 'withdraw', 'restore']],
    ['tenants', ['review', 'quota', 'usage']],
  ])('ops %s --help lists its subcommands', async (group, commands) => {
    const { code, stdout } = await ops(NO_DATABASE, [group, '--help']);
    expect(code).toBe(0);
    for (const command of commands) expect(stdout).toMatch(new RegExp(`\\n {2}${command} `));
  });
});
