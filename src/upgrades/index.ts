// Automatic upgrades' front door (docs/upgrades.md): sweeping opted-in installs to their next compatible
// release (or back from a withdrawn or blocked one), at the api's start-up, every five minutes, after a
// write of an install, and from the operator's commands after a block or a platform withdraw. Installs
// decide each move and write it (src/installs/upgrade/); this layer chooses which installs and when, takes
// the row lock, and reports. Files outside src/upgrades import this file only.

export { type UpgradeDeps, type UpgradeLogger, upgradeDepsOf } from './deps.ts';
export { SWEEP_INTERVAL_MS, startUpgradeSweeps, type UpgradeSweeps } from './schedule.ts';
export {
  type SweepReport,
  type SweepScope,
  type SweptInstall,
  type SweptMove,
  sweepUpgrades,
} from './sweep.ts';
export { upgradeTrigger } from './trigger.ts';
