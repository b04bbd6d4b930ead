// `ops apps versions withdraw <versionId>` (docs/operations.md "ops apps versions withdraw"): withdraws a
// tenant's version whatever its status, with a reason, audited in both trails with via operator; one
// already withdrawn is answered as it stands. A platform version is `ops platform withdraw`'s.

import { type Command, Option } from 'commander';
import { withdrawByOperator } from '../catalogue/operator-withdraw.ts';
import { runningInstalls } from '../installs/index.ts';
import { installsCount } from './apps-format.ts';
import { changeCommand, runs } from './commands.ts';
import { escapeText } from './output.ts';
import { rollBack, rollbackText } from './rollback.ts';
import { type OpsIO, OpsUsageError } from './runtime.ts';

export function registerAppsVersions(apps: Command, io: OpsIO): void {
  const versions = apps.command('versions').description("changes to a tenant's versions");
  changeCommand(
    versions,
    'withdraw',
    "withdraws a tenant's version whatever its status; its open publish request and pending review are withdrawn with it (installs keep running it)",
  )
    .argument('<versionId>', 'the id of the version (apps list shows it)')
    .addOption(
      new Option('--reason <text>', 'why (1 to 1000 characters; the tenant reads it)').makeOptionMandatory(),
    )
    .action(
      runs<{ json?: boolean; by: string; reason: string }>(io, async (session, [versionId], options) => {
        if (options.reason.trim() === '') throw new OpsUsageError('--reason: a reason is required');
        const outcome = await withdrawByOperator(session.database, runningInstalls, {
          versionId: versionId as string,
          reason: options.reason,
          by: options.by,
        });
        const rollback = await rollBack(session, outcome.rollback);
        const { version } = outcome;
        const named = `${escapeText(version.name)} ${escapeText(version.version)} (${version.id})`;
        const running = outcome.installs.length;
        const still = `${installsCount(running)} still ${running === 1 ? 'runs' : 'run'} it`;
        session.print({ ...outcome, rollback }, () =>
          outcome.alreadyWithdrawn
            ? `${named} was already withdrawn: ${still}\n`
            : `withdrew ${named}: ${still}\n${rollbackText(rollback)}`,
        );
      }),
    );
}
