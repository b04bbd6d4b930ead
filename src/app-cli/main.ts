// The `app` command: scaffold, build and test apps against the real host.
import { Command } from 'commander';
import { exitUsage } from '../cli/usage.ts';
import { PLATFORM_VERSION } from '../version.ts';
import { registerBuild } from './build.ts';
import { registerCollectorDouble } from './collector-double.ts';
import { AppUsageError } from './errors.ts';
import { registerNew } from './new.ts';
import { registerPublish } from './publish.ts';
import { registerTest } from './test.ts';
import { registerVendorDouble } from './vendor-double.ts';

const program = new Command('app')
  .version(PLATFORM_VERSION)
  .description('Write, build and test Apps Platform apps')
  .exitOverride(exitUsage);
registerNew(program);
registerBuild(program);
registerTest(program);
registerPublish(program);
registerVendorDouble(program);
registerCollectorDouble(program);

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`app: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(error instanceof AppUsageError ? 2 : 1);
});
