// Seams of the operator's commands that other subsystems fill (docs/operations.md "ops apps …"). runOps
// takes them; bin/ops.js runs with DEFAULT_HOOKS.
import type { OpsSession } from './runtime.ts';

/** Called after the command's change has committed, with the installs the automatic upgrades must move. */
export type AfterStop = (session: OpsSession, installIds: readonly string[]) => Promise<void>;

export interface OpsHooks {
  /**
   * After `apps block` commits: the installs it stopped that upgrade automatically (autoUpgrade
   * compatible), which must roll back to the highest published unblocked release of their range.
   */
  afterBlock?: AfterStop;
  /** After `apps versions withdraw` commits: likewise, the installs running the withdrawn version. */
  afterWithdraw?: AfterStop;
}

/**
 * The hooks the operator's command runs with. Empty until the automatic upgrades land: they set
 * afterBlock and afterWithdraw to their sweep of those installs (sweepUpgrades). Until then the
 * platform's own periodic sweep is what would move them.
 */
export const DEFAULT_HOOKS: OpsHooks = {};

/** Runs a hook when it is set and has installs to move. */
export async function runHook(
  hook: AfterStop | undefined,
  session: OpsSession,
  installIds: readonly string[],
): Promise<void> {
  if (hook && installIds.length > 0) await hook(session, installIds);
}
