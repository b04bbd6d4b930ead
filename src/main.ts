// The `platform` command: start, migrate, token, console, webhooks listen. Each action imports its own code when it
// runs, so `--help` and a mistyped option load commander alone (scripts/cli-build.js splits them apart).
import { Command, Option } from 'commander';
import { API_URL_HELP, findApiUrl } from './cli/api-url.ts';
import { exitUsage, UsageError } from './cli/usage.ts';
import { ConfigError } from './config/reader.ts';
import type { Role } from './config.ts';
import { fatalErrorText } from './error-text.ts';
import { PLATFORM_VERSION } from './version.ts';

const program = new Command('platform')
  .version(PLATFORM_VERSION)
  .description('Apps Platform: api, worker and runner')
  .exitOverride(exitUsage);

/** The settings of the environment (a ConfigError names every wrong one). */
const settings = async () => (await import('./config.ts')).loadConfig();

program
  .command('start')
  .description('run the platform; without DATABASE_URL, on embedded PostgreSQL under DATA_DIR')
  .addOption(
    new Option('--role <role>', 'which role to run')
      .choices(['all', 'api', 'worker', 'runner'])
      .default('all'),
  )
  .action(async (options: { role: Role }) => {
    const config = await settings();
    const { refuseToStart } = await import('./cli/start-checks.ts');
    await refuseToStart(config, options.role);
    const { start } = await import('./cli/start.ts');
    await start(config, options.role);
  });

// The runner child of `start --role all` (src/cli/runner-child.ts starts it; not for use by hand).
program.command('runner-child', { hidden: true }).action(async () => {
  const { runRunnerChild } = await import('./cli/runner-process.ts');
  await runRunnerChild();
});

program
  .command('migrate')
  .description("apply database migrations and exit (through the running platform's database, if any)")
  .action(async () => {
    const { openDatabaseForCommand } = await import('./cli/database.ts');
    const handle = await openDatabaseForCommand(await settings());
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
    const { mintToken } = await import('./cli/token.ts');
    process.stdout.write(`${await mintToken(await settings(), options)}\n`);
  });

program
  .command('console')
  .description('print a link that signs a principal in to the console (the token in its fragment)')
  .requiredOption('--tenant <name>', 'tenant name (created if new)')
  .addOption(new Option('--role <role>', 'role').choices(['admin', 'analyst']).makeOptionMandatory())
  .option('--user <name>', 'user name', 'developer')
  .option('--page <path>', 'the console page to land on, e.g. /runs/<id>', '/')
  .option('--expires-in <duration>', 'lifetime, e.g. 30m, 12h, 7d', '12h')
  .option('--open', 'open the link in the default browser as well')
  .option('--api-url <url>', API_URL_HELP)
  .action(
    async (options: {
      tenant: string;
      role: string;
      user: string;
      page: string;
      expiresIn: string;
      open?: boolean;
      apiUrl?: string;
    }) => {
      const [{ mintToken }, { consoleLink, consolePage, openInBrowser }] = await Promise.all([
        import('./cli/token.ts'),
        import('./cli/console-link.ts'),
      ]);
      consolePage(options.page);
      const config = await settings();
      const api = await findApiUrl(options.apiUrl, config);
      const token = await mintToken(config, { ...options, permission: [] });
      const link = consoleLink(api.url, token, options.page);
      process.stdout.write(`${link}\n`);
      if (options.open && !openInBrowser(link)) {
        process.stderr.write('platform: no browser opener (xdg-open) on this machine: open the link above\n');
      }
    },
  );

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
  .option('--api-url <url>', API_URL_HELP)
  // The option's name before it was spelled as `app publish` spells it; kept for one release.
  .addOption(new Option('--api <url>').hideHelp())
  .option(
    '--events <types>',
    'event types, comma separated (GET /webhook-events lists them)',
    'run.completed,run.failed,decision.created',
  )
  .option('--port <port>', 'the listener’s port (0: any free one)', '0')
  .action(async (options: { apiUrl?: string; api?: string; token: string; events: string; port: string }) => {
    const { listen } = await import('./cli/webhooks-listen.ts');
    const api = await findApiUrl(options.apiUrl ?? options.api, await settings());
    const stop = new Promise((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await listen({ ...options, api }, process.stdout, stop);
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    process.stderr.write(`platform: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`platform: ${fatalErrorText(error)}\n`);
  process.exit(1);
});
