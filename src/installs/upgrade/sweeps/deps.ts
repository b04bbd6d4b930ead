// What sweeping automatic upgrades needs, buildable wherever the deployment's settings and database are:
// the api (start-up, every five minutes, after a write of an install) and the operator's commands (after
// a block or a platform withdraw).
import type { Config } from '../../../config.ts';
import type { Database } from '../../../db/pool.ts';
import type { InstallCallers } from '../../callers.ts';
import type { HostRuleOptions } from '../../hosts.ts';

/** Where sweeps say what they did and what failed (a pino or Fastify logger fits). */
export interface UpgradeLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface UpgradeDeps {
  database: Database;
  /** The rules a config URL's host is checked by (APP_RUNNER_ALLOW_PRIVATE_NETWORKS, the deployment's own hosts). */
  hostRules: HostRuleOptions;
  /** Who calls an install's names: the definitions layer (src/runs/definitions/callers.ts definitionCallers). */
  callers: InstallCallers;
  logger: UpgradeLogger;
}

/** The deps from the deployment's settings, its database, the definitions layer's callers and a logger. */
export function upgradeDepsOf(parts: {
  config: Pick<Config, 'allowPrivateNetworks' | 'ownHosts'>;
  database: Database;
  callers: InstallCallers;
  logger: UpgradeLogger;
}): UpgradeDeps {
  return {
    database: parts.database,
    hostRules: { allowPrivateNetworks: parts.config.allowPrivateNetworks, ownHosts: parts.config.ownHosts },
    callers: parts.callers,
    logger: parts.logger,
  };
}
