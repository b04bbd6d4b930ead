// The `app` command: scaffold, build and test apps against the real host. Only the command a line names is
// loaded (src/cli/lazy-commands.ts), so `app --help` loads commander alone.
import { Command } from 'commander';
import { addLazyCommands } from '../cli/lazy-commands.ts';
import { exitUsage, UsageError } from '../cli/usage.ts';
import { fatalErrorText } from '../error-text.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { APP_COMMANDS, type AppCommandName } from './commands.ts';

const LOADERS: Record<AppCommandName, () => Promise<(program: Command) => void>> = {
  new: async () => (await import('./new.ts')).registerNew,
  build: async () => (await import('./build.ts')).registerBuild,
  test: async () => (await import('./test.ts')).registerTest,
  publish: async () => (await import('./publish.ts')).registerPublish,
  'vendor-double': async () => (await import('./vendor-double.ts')).registerVendorDouble,
  'collector-double': async () => (await import('./collector-double.ts')).registerCollectorDouble,
};

const program = new Command('app')
  .version(PLATFORM_VERSION)
  .description('Write, build and test Apps Platform apps')
  .exitOverride(exitUsage);

try {
  const argv = process.argv.slice(2);
  await addLazyCommands(program, APP_COMMANDS, argv, async (name) => (await LOADERS[name]())(program));
  await program.parseAsync();
} catch (error) {
  process.stderr.write(`app: ${fatalErrorText(error)}\n`);
  // A usage error (AppUsageError among them) exits 2; a command that ran and failed, 1.
  process.exit(error instanceof UsageError ? 2 : 1);
}
