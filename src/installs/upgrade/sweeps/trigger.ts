// The sweeps' answer to the installs' port (src/installs/upgrade/trigger.ts): after a save of an
// install, a decision on its change or a secret stored for it, the install is swept at once.
import type { UpgradeTrigger } from '../trigger.ts';
import type { UpgradeDeps } from './deps.ts';
import { sweepUpgrades } from './sweep.ts';

export function upgradeTrigger(deps: UpgradeDeps): UpgradeTrigger {
  return {
    async afterWrite(installId) {
      try {
        const report = await sweepUpgrades(deps, { installIds: [installId] });
        return report.upgraded.length + report.rolledBack.length + report.held.length > 0;
      } catch (err) {
        // Best-effort: the write it follows stands; the next sweep moves the install.
        deps.logger.error({ installId, err }, 'moving an install after a write failed');
        return false;
      }
    },
  };
}
