// The api's sweeps (docs/upgrades.md "When installs move"): one every five minutes after the start-up's,
// each scheduled once the one before ended (never two of one process at once). The timer does not keep
// the process alive; closing stops it and waits for a sweep under way, before the database closes.
import type { UpgradeDeps } from './deps.ts';
import { sweepUpgrades } from './sweep.ts';

export const SWEEP_INTERVAL_MS = 5 * 60_000;

export interface UpgradeSweeps {
  close(): Promise<void>;
}

/** Sweeps every `intervalMs` (five minutes unless a test says otherwise), the first one interval from now. */
export function startUpgradeSweeps(deps: UpgradeDeps, intervalMs = SWEEP_INTERVAL_MS): UpgradeSweeps {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const schedule = () => {
    if (closed) return;
    timer = setTimeout(sweep, intervalMs);
    timer.unref();
  };
  const sweep = () => {
    running = sweepUpgrades(deps)
      .then(() => undefined)
      .catch((err: unknown) => deps.logger.error({ err }, 'automatic upgrade sweep failed'))
      .finally(() => {
        running = null;
        schedule();
      });
  };
  schedule();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
