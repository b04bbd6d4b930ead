// The seam `ops platform withdraw` calls once a withdrawal has committed (docs/operations.md "ops platform
// withdraw"): installs that run the withdrawn version and opted into compatible automatic upgrades are to
// be rolled back by the upgrades' sweep, to the highest published unblocked version of their range. The
// sweep is not in this branch: until it is wired here, the hook does nothing and answers null.
import type { WithdrawnPlatformVersion } from '../catalogue/platform-versions.ts';
import type { OpsSession } from './runtime.ts';

/** What the rollback did, shown under `rollback` of the command's answer; null when nothing ran. */
export type RollbackReport = Record<string, unknown> | null;

/**
 * Runs after `platform withdraw` commits, with what it withdrew and the installs still on it. Wire the
 * upgrades' sweep (sweepUpgrades over `withdrawn.installs` with autoUpgrade compatible) here.
 */
export async function afterPlatformWithdraw(
  _session: OpsSession,
  _withdrawn: WithdrawnPlatformVersion,
): Promise<RollbackReport> {
  return null;
}
