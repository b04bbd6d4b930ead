// Moving one opted-in install (docs/upgrades.md "Two processes"): its plan is read without a lock, and
// only when it would write — apply the move, open the platform's change, or withdraw the platform's change
// that no longer stands — does a transaction lock the install's row (for update) and read the plan again
// under the lock, acting on what it reads then. So sweeps of several api processes at once, a save, or a
// decision on its change take turns on one install, and the second finds the first's result: each move
// is made once.
import { eq } from 'drizzle-orm';
import type { Queryable } from '../../../db/pool.ts';
import { appInstalls } from '../../tables.ts';
import type { InstallRow } from '../../view.ts';
import { applyUpgrade, holdUpgrade, withdrawStaleUpgrade } from '../upgrade-moves.ts';
import type { WaitingFor } from '../upgrade-rules.ts';
import { readUpgradePlans, type UpgradePlan } from '../upgrade-store.ts';
import type { UpgradeDeps } from './deps.ts';

export type MoveOutcome =
  /** Not opted in (any more), or nothing to move to. */
  | { kind: 'none' }
  | { kind: 'upgraded' | 'rolled_back'; from: string; to: string; toVersionId: string }
  | { kind: 'held'; from: string; to: string; changeId: string; rollback: boolean }
  | { kind: 'waiting'; from: string; to: string; waitingFor: WaitingFor; rollback: boolean };

async function planOf(deps: UpgradeDeps, db: Queryable, install: InstallRow): Promise<UpgradePlan | null> {
  const plans = await readUpgradePlans(db, [install], deps);
  return plans.get(install.id) ?? null;
}

/** Whether acting on the plan writes anything. */
const writes = (plan: UpgradePlan) =>
  plan.supersedesOpenChange || plan.decision?.action === 'apply' || plan.decision?.action === 'hold';

/** What a plan comes to without a write (the move waits, or there is none). */
function unwritten(plan: UpgradePlan | null): MoveOutcome {
  if (!plan?.target || !plan.decision || plan.decision.waitingFor === null) return { kind: 'none' };
  return {
    kind: 'waiting',
    from: plan.running.version,
    to: plan.target.version,
    waitingFor: plan.decision.waitingFor,
    rollback: plan.rollback,
  };
}

/** Moves the install as its plan says, or opens or withdraws the platform's change; answers what it did. */
export async function moveInstall(deps: UpgradeDeps, install: InstallRow): Promise<MoveOutcome> {
  const seen = await planOf(deps, deps.database.db, install);
  if (!seen || !writes(seen)) return unwritten(seen);
  return deps.database.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(appInstalls).where(eq(appInstalls.id, install.id)).for('update');
    // Removed meanwhile: nothing to move.
    if (!locked) return { kind: 'none' };
    // Read again under the lock: another sweep, a save or a decision may have come first.
    const plan = await planOf(deps, tx, locked);
    if (!plan) return { kind: 'none' };
    const { target, decision } = plan;
    if (!target || !decision || decision.action === 'wait') {
      if (plan.supersedesOpenChange) await withdrawStaleUpgrade(tx, plan);
      return unwritten(plan);
    }
    const from = plan.running.version;
    if (decision.action === 'hold') {
      const change = await holdUpgrade(tx, { ...plan, target });
      return { kind: 'held', from, to: target.version, changeId: change.id, rollback: plan.rollback };
    }
    await applyUpgrade(tx, { ...plan, target });
    return {
      kind: plan.rollback ? 'rolled_back' : 'upgraded',
      from,
      to: target.version,
      toVersionId: target.id,
    };
  });
}
