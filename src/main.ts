// The `platform` command: start, migrate, token, webhooks listen.
import { Command, Option } from 'commander';
import { openDatabaseForCommand } from './cli/database.ts';
import { runRunnerChild } from './cli/runner-process.ts';
import { start } from './cli/start.ts';
import { mintToken, UsageError } from './cli/token.ts';
import { exitUsage } from './cli/usage.ts';
import { listen } from './cli/webhooks-listen.ts';
import { ConfigError, loadConfig, type Role } from './config.ts';
import { PLATFORM_VERSION } from './version.ts';

const program = new Command('platform')
  .version(PLATFORM_VERSION)
  .description('Apps Platform: api, worker and runner')
  .exitOverride(exitUsage);

program
  .command('start')
  .description('run the platform; without DATABASE_URL, on embedded PostgreSQL under DATA_DIR')
  .addOption(
    new Option('--role <role>', 'which role to run')
      .choices(['all', 'api', 'worker', 'runner'])
      .default('all'),
  )
  .action(async (options: { role: Role }) => {
    await start(loadConfig(), options.role);
  });

// The runner child of `start --role all` (src/cli/runner-child.ts starts it; not for use by hand).
program.command('runner-child', { hidden: true }).action(runRunnerChild);

program
  .command('migrate')
  .description("apply database migrations and exit (through the running platform's database, if any)")
  .action(async () => {
    const handle = await openDatabaseForCommand(loadConfig());
    await handle.stop();
    process.stdout.write('migrations applied\n');
  });

program
  .command('token')
  .description('print a development JWT signed with the local key in DATA_DIR (creates the tenant if new)')
  .requiredOption('--tenant <name>', 'tenant name')
  .addOption(new Option('--role <role>', 'role (required unless --applicant)').choices(['admin', 'analyst']))
  .option(
    '--permission <permission>',
    'extra permission (repeatable)',
    (p: string, all: string[]) => [...all, p],
    [],
  )
  .option('--user <name>', 'user or service name')
  .option('--machine', 'a machine (service user) instead of a human')
  .option('--applicant <submissionId>', "the applicant of a collection submission (the link's token)")
  .option('--expires-in <duration>', 'lifetime, e.g. 30m, 12h, 7d', '12h')
  .action(async (options) => {
    process.stdout.write(`${await mintToken(loadConfig(), options)}\n`);
  });

program
  .command('webhooks')
  .description('outbound webhooks for development')
  .command('listen')
  .description(
    'receive outbound webhooks on loopback: creates an endpoint, prints each delivery verified, deletes it on Ctrl-C',
  )
  .requiredOption(
    '--token <jwt>',
    'a token with webhooks:write (npx platform token --tenant acme --role admin)',
  )
  .option('--api <url>', 'the API', 'http://127.0.0.1:3000')
  .option(
    '--events <types>',
    'event types, comma separated (GET /webhook-events lists them)',
    'run.completed,run.failed,decision.created',
  )
  .option('--port <port>', 'the listener’s port (0: any free one)', '0')
  .action(async (options) => {
    const stop = new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await listen(options, process.stdout, stop);
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`platform: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`platform: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
