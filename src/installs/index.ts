// The installs' front door: what other layers use of installs. Files outside src/installs import this file
// rather than the files behind it, so the inside (capabilities, rules, stores) can move without breaking
// them. Each group's comment stands apart (a blank line under it) so that sorting the exports keeps the
// groups.
//
// Two importers stay direct, since through this file they would close an import circle: src/db/schema.ts
// (gathers tables.ts for Drizzle; installs' services take the pool's types, which come from that schema)
// and src/calls/tables.ts, which that schema gathers too.

// The api: the install routes' scope, and the install names the catalogue asks after.

export { installRoutesScope } from './routes-scope.ts';
export { installNamesOf } from './service.ts';

// The catalogue's operator changes (blocks, withdrawals, platform versions): the installs running a
// version, the port they ask through (the ops commands hand it in).

export { runningInstalls } from './running-store.ts';

// Home's attention list (src/attention): open install changes and upgrades that wait.

export { pendingInstallChanges, type WaitingUpgrade, waitingUpgrades } from './attention-store.ts';

// Automatic upgrades (upgrade/, docs/upgrades.md): the sweeps the api schedules and the operator's
// commands run, what they are built from, and the sweep's answer to the port a write of an install moves
// it through at once (the api wires it in). What deciding a waiting upgrade reads (Home's list).

export { type UpgradeDeps, type UpgradeLogger, upgradeDepsOf } from './upgrade/sweeps/deps.ts';
export { SWEEP_INTERVAL_MS, startUpgradeSweeps, type UpgradeSweeps } from './upgrade/sweeps/schedule.ts';
export {
  type SweepReport,
  type SweepScope,
  type SweptInstall,
  type SweptMove,
  sweepUpgrades,
} from './upgrade/sweeps/sweep.ts';
export { upgradeTrigger } from './upgrade/sweeps/trigger.ts';
export type { UpgradeTrigger } from './upgrade/trigger.ts';
export type { UpgradeReading } from './upgrade/upgrade-store.ts';

// Routes other layers add to the scope (src/calls): the context the scope resolved, the parameters.

export { type InstallRouteDeps, installContextOf } from './context.ts';
export type { InstallRecords, MeteringRecords, SessionRecords } from './records.ts';
export { InstallParams, Name } from './routes.ts';

// An install as calls and definitions read it: its rows, its version, its view, its webhook URL.

export {
  audit,
  auditEntryOf,
  type InstallContext,
  lockTenantInstalls,
  readVersion,
  requireInstall,
  unknownInstall,
  unknownInstallOf,
} from './service.ts';
export {
  appInstallAliases,
  appInstallChanges,
  appInstallCircuits,
  appInstallLimits,
  appInstallSecrets,
  appInstalls,
  BUDGET_METRICS,
  BUDGET_PERIODS,
  type Budget,
  type BudgetMetric,
  type BudgetPeriod,
} from './tables.ts';
export { type InstallRow, type VersionRow, webhookUrl } from './view.ts';

// Who calls an install's names: the port the definitions layer answers.

export type { Callers, DefinitionRef, InstallCallers, Rewritten, Skipped, Usage } from './callers.ts';

// What an attempt checks and moves (src/calls): documents, required secrets and their opening, the
// circuit, cached values, limits and prices.

export {
  liveCacheOf,
  liveCacheOrRead,
  readLiveCache,
  type StoredCache,
  storeCacheChanges,
  storedValuesJson,
  storedValuesOf,
} from './cache/cache.ts';
export { readsDocuments } from './capabilities.ts';
export {
  type CircuitCount,
  type CircuitGate,
  type CircuitRow,
  type CircuitSettings,
  countOf,
  gateOf,
  settingsInForce,
  shownCircuit,
} from './circuit/circuit-rules.ts';
export {
  type CircuitRead,
  circuitOpen,
  claimTrial,
  dbNow,
  moveCircuit,
  readDatabaseNow,
  readGate,
} from './circuit/circuit-store.ts';
export { childPointer } from './config-pointers.ts';
export {
  type InstallLimits,
  type LimitsRecord,
  limitsOfRow,
  readLimits,
  readTenantInstallLimits,
} from './limits/limits-store.ts';
export { open } from './secrets/seal.ts';
export { requiredSecrets } from './secrets/secrets-rules.ts';
export {
  readStoredSecrets,
  type StoredSecret,
  type StoredWithInstall,
  storedWithInstallColumns,
  storedWithInstallOf,
} from './secrets/stored-secrets.ts';

// The ports browsers refuse (the hand-off's page rule refuses them as config URLs do).

export { BAD_PORTS, type HostRuleOptions } from './hosts.ts';

// The rules of cached values, which packages/app-testing applies as the platform does.

export { evictionChoice, expiryOf, planCacheChanges, sizeOf } from './cache/cache-rules.ts';
