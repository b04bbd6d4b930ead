// `ops apps blocks`, `apps block` and `apps unblock` (docs/operations.md "ops apps block"): the operator's
// blocks, listed, set and lifted. A block holds from its commit: every action touching a module reads
// the blocks as it runs.

import { type Command, Option } from 'commander';
import { type BlockTargetInput, liftBlock, listBlocks, setBlock } from '../catalogue/operator-blocks.ts';
import { runningInstalls } from '../installs/index.ts';
import { blockTarget, installsCount } from './apps-format.ts';
import { changeCommand, opsCommand, runs, tenantArg } from './commands.ts';
import { escapeText, table } from './output.ts';
import { rollBack, rollbackText } from './rollback.ts';
import { type OpsIO, type OpsSession, OpsUsageError } from './runtime.ts';

interface BlockOptions {
  json?: boolean;
  by: string;
  sha256?: string;
  app?: string;
  tenant?: string;
  platform?: boolean;
  reason: string;
}

const SHA256 = /^[0-9a-fA-F]{64}$/;

/** What --sha256, --app, --tenant and --platform ask to block (a usage error when they do not fit). */
async function targetOf(session: OpsSession, options: BlockOptions): Promise<BlockTargetInput> {
  if (options.sha256 !== undefined) {
    if (!SHA256.test(options.sha256)) throw new OpsUsageError('--sha256: 64 hex characters');
    return { sha256: options.sha256.toLowerCase() };
  }
  if (options.app === undefined)
    throw new OpsUsageError('name what to block: --sha256 <hash>, or --app <name>');
  if (options.platform) return { publisher: 'platform', appName: options.app };
  if (options.tenant === undefined)
    throw new OpsUsageError('--app: name its publisher with --tenant <tenant> or --platform');
  const tenant = await tenantArg(session.database.db, options.tenant);
  return { publisher: 'tenant', tenantId: tenant.id, appName: options.app };
}

export function registerAppsBlocks(apps: Command, io: OpsIO): void {
  opsCommand(apps, 'blocks', 'the blocks, newest first: the unlifted ones, or every one with --all')
    .option('--all', 'include lifted blocks')
    .action(
      runs<{ json?: boolean; all?: boolean }>(io, async (session, _args, options) => {
        const items = await listBlocks(session.database.db, runningInstalls, { all: options.all === true });
        session.print({ items }, () =>
          table(items, [
            { header: 'ID', value: (b) => b.id },
            { header: 'SCOPE', value: (b) => b.scope },
            { header: 'TARGET', value: blockTarget },
            { header: 'REASON', value: (b) => b.reason },
            { header: 'BY', value: (b) => b.createdBy },
            { header: 'AT', value: (b) => b.createdAt },
            { header: 'LIFTED', value: (b) => (b.liftedAt ? `${b.liftedAt} by ${b.liftedBy}` : '-') },
            { header: 'INSTALLS', value: (b) => b.installs },
          ]),
        );
      }),
    );

  changeCommand(
    apps,
    'block',
    "blocks a module by its hash, or every version of a publisher's app; holds from its commit (no restart)",
  )
    .addOption(
      new Option('--sha256 <hash>', "the module's hash (64 hex characters)").conflicts([
        'app',
        'tenant',
        'platform',
      ]),
    )
    .option('--app <name>', 'every version of this app, of the publisher --tenant or --platform names')
    .addOption(
      new Option('--tenant <tenant>', "with --app: the tenant's app (its name or id)").conflicts('platform'),
    )
    .option('--platform', "with --app: the platform's app")
    .addOption(
      new Option(
        '--reason <text>',
        'why (1 to 1000 characters; the tenants concerned read it)',
      ).makeOptionMandatory(),
    )
    .action(
      runs<BlockOptions>(io, async (session, _args, options) => {
        if (options.reason.trim() === '') throw new OpsUsageError('--reason: a reason is required');
        const target = await targetOf(session, options);
        const outcome = await setBlock(
          session.database,
          runningInstalls,
          { target, reason: options.reason, by: options.by },
          (done, total) => session.progress('blocking installs', done, total),
        );
        const rollback = await rollBack(session, outcome.rollback);
        session.print(
          { ...outcome, rollback },
          () =>
            `blocked ${escapeText(blockTarget(outcome.block))} (block ${outcome.block.id}): ${installsCount(outcome.installs.length)} stopped\n${rollbackText(rollback)}`,
        );
      }),
    );

  changeCommand(apps, 'unblock', 'lifts a block; the modules it stopped run again from its commit')
    .argument('<blockId>', 'the id of the block (apps blocks lists them)')
    .action(
      runs<{ json?: boolean; by: string }>(io, async (session, [blockId], options) => {
        const outcome = await liftBlock(
          session.database,
          runningInstalls,
          { blockId: blockId as string, by: options.by },
          (done, total) => session.progress('lifting', done, total),
        );
        session.print(
          outcome,
          () =>
            `lifted block ${outcome.block.id} on ${escapeText(blockTarget(outcome.block))}: ${installsCount(outcome.installs.length)} concerned\n`,
        );
      }),
    );
}
