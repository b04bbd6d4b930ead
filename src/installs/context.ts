// What every route of the install routes' scope hands its service: the database, the caller, the request
// id and the deployment's settings that install rules read. The scope (routes-scope.ts) resolves it once
// per request; handlers read it with installContextOf.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError } from '../http/errors.ts';
import type { RunnerClient } from '../runner/index.ts';
import { type InstallCallers, NO_CALLERS } from './callers.ts';
import type { InstallRecords } from './records.ts';
import type { InstallContext } from './service.ts';
import { NO_UPGRADE_TRIGGER, type UpgradeTrigger } from './upgrade/trigger.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the install routes' scope before its handlers run; null outside it. */
    installContext?: InstallContext | null;
  }
}

export interface InstallRouteDeps {
  database: Database;
  config: Config;
  /** The runner test calls go to; null when the deployment has none. */
  runner: RunnerClient | null;
  /** False when the deployment has no runner or no module storage: /app-installs answers 503 apps_unavailable. */
  available: boolean;
  /** Who calls an install's names: the definitions layer, wired in by the api. */
  callers?: InstallCallers;
  /** Moves an install at once after a write of it: the upgrades layer, wired in by the api. */
  upgrades?: UpgradeTrigger;
  /** An install's vendor sessions and metering rows: the layers that keep them, wired in by the api. */
  records: InstallRecords;
}

/** The install context of a request: its caller and id, with the deployment's settings. */
export function buildInstallContext(deps: InstallRouteDeps, request: FastifyRequest): InstallContext {
  return {
    database: deps.database,
    principal: principalOf(request),
    requestId: request.id,
    callers: deps.callers ?? NO_CALLERS,
    upgrades: deps.upgrades ?? NO_UPGRADE_TRIGGER,
    records: deps.records,
    settings: {
      // Never from the request: its Host header is the caller's to choose (vendors' webhooks would follow).
      webhookBase: deps.config.webhookPublicUrl,
      circuitDefaults: deps.config.circuit,
      hostRules: {
        allowPrivateNetworks: deps.config.allowPrivateNetworks,
        ownHosts: deps.config.ownHosts,
      },
      secretStoreKey: deps.config.secretStoreKey,
      signatures: deps.config.appSignatures,
      cacheBudget: deps.config.cacheBudget,
    },
  };
}

/** The install context the scope resolved for this request; a route outside the scope has none. */
export function installContextOf(request: FastifyRequest): InstallContext {
  if (!request.installContext) throw new ApiError('internal', 'internal error');
  return request.installContext;
}
