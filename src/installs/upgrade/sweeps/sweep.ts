// The sweep (docs/upgrades.md "When installs move"): every opted-in install, or those of one app, or a few
// named ones, moved one at a time (move.ts), each in its own transaction. One install failing is logged
// with its id and reported; the sweep goes on with the next.
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import { countUpgrade } from '../../../telemetry/index.ts';
import { appInstalls } from '../../tables.ts';
import type { WaitingFor } from '../upgrade-rules.ts';
import type { UpgradeDeps } from './deps.ts';
import { moveInstall } from './move.ts';

/** Which opted-in installs a sweep looks at; empty: all of them, in every tenant. */
export interface SweepScope {
  /** Installs of this catalogue app only (after a block or a withdraw of one of its versions). */
  appName?: string;
  installIds?: readonly string[];
}

export interface SweptInstall {
  installId: string;
  tenantId: string;
  name: string;
  appName: string;
}

/** An install and its move: the version it ran when swept, and the one it moves (or would move) to. */
export interface SweptMove extends SweptInstall {
  fromVersion: string;
  toVersion: string;
}

export interface SweepReport {
  /** Moved up at once (audited app.install.upgraded, automatic true, rollback false). */
  upgraded: (SweptMove & { toVersionId: string })[];
  /** Moved down from a withdrawn or blocked version at once (rollback true). */
  rolledBack: (SweptMove & { toVersionId: string })[];
  /** A change with origin auto_upgrade opened: the move adds hosts or capabilities. */
  held: (SweptMove & { changeId: string; rollback: boolean })[];
  /** The move waits for someone (waitingFor); nothing was written. */
  waiting: (SweptMove & { waitingFor: WaitingFor; rollback: boolean })[];
  /** Installs whose move failed (logged with the error); the next sweep tries again. */
  failed: (SweptInstall & { message: string })[];
}

const emptyReport = (): SweepReport => ({ upgraded: [], rolledBack: [], held: [], waiting: [], failed: [] });

/** Sweeps opted-in installs (autoUpgrade compatible) in `scope`; answers what each came to. */
export async function sweepUpgrades(deps: UpgradeDeps, scope: SweepScope = {}): Promise<SweepReport> {
  const report = emptyReport();
  if (scope.installIds?.length === 0) return report;
  const conditions: SQL[] = [eq(appInstalls.autoUpgrade, 'compatible')];
  if (scope.appName !== undefined) conditions.push(eq(appInstalls.appName, scope.appName));
  if (scope.installIds) conditions.push(inArray(appInstalls.id, [...scope.installIds]));
  const installs = await deps.database.db
    .select()
    .from(appInstalls)
    .where(and(...conditions))
    .orderBy(asc(appInstalls.id));
  for (const install of installs) {
    const swept: SweptInstall = {
      installId: install.id,
      tenantId: install.tenantId,
      name: install.name,
      appName: install.appName,
    };
    try {
      const outcome = await moveInstall(deps, install);
      if (outcome.kind === 'none') continue;
      const entry = { ...swept, fromVersion: outcome.from, toVersion: outcome.to };
      switch (outcome.kind) {
        case 'held':
          countUpgrade('held');
          report.held.push({ ...entry, changeId: outcome.changeId, rollback: outcome.rollback });
          break;
        case 'waiting':
          report.waiting.push({ ...entry, waitingFor: outcome.waitingFor, rollback: outcome.rollback });
          break;
        default:
          countUpgrade('applied');
          (outcome.kind === 'upgraded' ? report.upgraded : report.rolledBack).push({
            ...entry,
            toVersionId: outcome.toVersionId,
          });
      }
    } catch (err) {
      deps.logger.error(
        { installId: install.id, tenantId: install.tenantId, err },
        'automatic upgrade failed; the next sweep tries again',
      );
      report.failed.push({ ...swept, message: err instanceof Error ? err.message : String(err) });
    }
  }
  const wrote = report.upgraded.length + report.rolledBack.length + report.held.length;
  if (wrote + report.failed.length > 0) {
    deps.logger.info(
      {
        upgraded: report.upgraded.map((i) => i.installId),
        rolledBack: report.rolledBack.map((i) => i.installId),
        held: report.held.map((i) => i.installId),
        failed: report.failed.map((i) => i.installId),
        waiting: report.waiting.length,
      },
      'automatic upgrades swept',
    );
  }
  return report;
}
