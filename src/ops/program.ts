// The `ops` command (docs/operations.md "The ops command"): the operator's commands on the deployment's own
// database. runOps parses and runs one command line and answers its exit code, so tests run the real
// command in-process and bin/ops.js runs it for an operator. Only the group the line names is loaded
// (with the database code behind it); the others are listed by name, so `ops --help` loads commander alone.
import { Command, CommanderError } from 'commander';
import { addLazyCommands } from '../cli/lazy-commands.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { GROUPS, type GroupName } from './groups.ts';
import type { OpsIO } from './runtime.ts';

/** Registers a group of commands on the program; each action runs through `io`. */
export type Register = (program: Command, io: OpsIO) => void;

const LOADERS: Record<GroupName, () => Promise<Register>> = {
  apps: async () => (await import('./apps.ts')).registerApps,
  platform: async () => (await import('./platform.ts')).registerPlatform,
  tenants: async () => (await import('./tenants.ts')).registerTenants,
  audit: async () => (await import('./audit.ts')).registerAudit,
};

async function buildProgram(argv: readonly string[], io: OpsIO): Promise<Command> {
  const program = new Command('ops')
    .version(PLATFORM_VERSION)
    .description(
      "The operator's commands, on the deployment's own database (DATABASE_URL, or the embedded one under DATA_DIR)",
    )
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError()
    .exitOverride();
  await addLazyCommands(program, GROUPS, argv, async (name) => (await LOADERS[name]())(program, io));
  // Every subcommand inherits the program's output and its exit override.
  const inherit = (command: Command) => {
    for (const sub of command.commands) {
      sub.copyInheritedSettings(command);
      inherit(sub);
    }
  };
  inherit(program);
  return program;
}

/** Runs one command line (without the node and script arguments); answers the exit code. */
export async function runOps(argv: readonly string[], io: OpsIO): Promise<number> {
  try {
    const program = await buildProgram(argv, io);
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // commander's own exits: help and version 0, every usage error 2 (it printed why).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const { failureOf } = await import('./runtime.ts');
    const failure = failureOf(error, argv.includes('--json'));
    io.stderr.write(failure.text);
    return failure.code;
  }
}
