// Exit codes of the command lines: commander exits 1 on a usage error (a missing option or argument, an
// unknown command or option); ours say 2 for usage, keeping 1 for a command that ran and failed.
import type { CommanderError } from 'commander';

/** A command line asking for something it cannot have (a bad option value): exit code 2. */
export class UsageError extends Error {}

/** commander's exitOverride: help and version exit 0, every usage error 2 (commander printed why). */
export function exitUsage(error: CommanderError): never {
  process.exit(error.exitCode === 0 ? 0 : 2);
}
