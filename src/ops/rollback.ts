// What the operator's commands run once a block or a withdrawal has committed (docs/operations.md "ops apps
// block", "ops platform withdraw"; docs/upgrades.md "Rollback"): the installs it stopped that upgrade
// automatically move back, at once, to the highest published unblocked release of their range, through
// the same sweep the api runs every five minutes (which would move them too, only later). A rollback that
// fails for one install leaves the change standing; the report says which.
import { type SweepReport, sweepUpgrades, upgradeDepsOf } from '../installs/index.ts';
import { definitionCallers } from '../runs/index.ts';
import { escapeText } from './output.ts';
import type { OpsSession } from './runtime.ts';

/** Sweeps these installs (opted-in ones the change stopped); null when there are none. */
export async function rollBack(
  session: OpsSession,
  installIds: readonly string[],
): Promise<SweepReport | null> {
  if (installIds.length === 0) return null;
  const deps = upgradeDepsOf({
    config: session.config,
    database: session.database,
    callers: definitionCallers,
    logger: session.logger,
  });
  return sweepUpgrades(deps, { installIds });
}

/** The report as lines for a terminal: one per install, what became of it. */
export function rollbackText(report: SweepReport | null): string {
  if (report === null) return '';
  const line = (
    what: string,
    i: { name: string; tenantId: string; fromVersion: string; toVersion: string },
  ) =>
    `  ${what} ${escapeText(i.name)} (tenant ${i.tenantId}): ${escapeText(i.fromVersion)} -> ${escapeText(i.toVersion)}\n`;
  return [
    ...report.rolledBack.map((i) => line('rolled back', i)),
    ...report.upgraded.map((i) => line('upgraded', i)),
    ...report.held.map((i) => line(`held for approval (change ${i.changeId})`, i)),
    ...report.waiting.map((i) => line(`waiting for ${i.waitingFor}`, i)),
    ...report.failed.map(
      (i) => `  failed ${escapeText(i.name)} (tenant ${i.tenantId}): ${escapeText(i.message)}\n`,
    ),
  ].join('');
}
