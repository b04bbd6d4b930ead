// A call of an install by a workflow step, an app rule or a fallback (spec part 1 §4.8 "Calling an
// install from workflows and rules", "Order of an attempt"): the install the call names — by its name or
// a kept alias — with its version, one attempt through the one pipeline (attempt.ts), enabled required,
// recorded. An unknown name is 404 unknown_install and is recorded nowhere (there is no install to
// record it under).
import { and, eq } from 'drizzle-orm';
import type { Queryable } from '../db/pool.ts';
import { readsDocuments } from '../installs/capabilities.ts';
import { findInstall, unknownInstall, versionById } from '../installs/service.ts';
import { appInstallAliases, appInstalls } from '../installs/tables.ts';
import { type InstallRow, webhookUrl } from '../installs/view.ts';
import { type AttemptDeps, type AttemptOutcome, runAttempt } from './attempt.ts';
import type { InvocationContext } from './invocations.ts';

export interface InstallCall {
  tenantId: string;
  /** The name the call used: the install's name or one of its kept aliases. */
  install: string;
  action: string;
  input: unknown;
  idempotencyKey: string | null;
  subjectId: string | null;
  /** Cut to the time the step or rule has left; the action's timeoutMs when absent. */
  timeoutMs?: number;
  record: InvocationContext;
}

/** The tenant's install of that name, or the one keeping it as an alias; else 404 unknown_install. */
export async function resolveInstall(db: Queryable, tenantId: string, name: string): Promise<InstallRow> {
  const named = await findInstall(db, tenantId, name, false);
  if (named) return named;
  const [aliased] = await db
    .select({ install: appInstalls })
    .from(appInstallAliases)
    .innerJoin(appInstalls, eq(appInstalls.id, appInstallAliases.installId))
    .where(and(eq(appInstallAliases.tenantId, tenantId), eq(appInstallAliases.alias, name)));
  if (aliased) return aliased.install;
  throw unknownInstall(name);
}

export async function callInstall(deps: AttemptDeps, call: InstallCall): Promise<AttemptOutcome> {
  const db = deps.database.db;
  const install = await resolveInstall(db, call.tenantId, call.install);
  const version = await versionById(db, install.versionId);
  return runAttempt(
    deps,
    {
      install,
      version,
      action: call.action,
      input: call.input,
      idempotencyKey: call.idempotencyKey,
      subjectId: call.subjectId,
      callbackUrl: webhookUrl(version.manifest, install.config, install.id, deps.webhookBase ?? null),
      // Steps and rules hold no caller's permissions: the install's own reading of documents decides.
      mayReadDocuments: readsDocuments(version.manifest, install.config),
      ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
    },
    { requireEnabled: true, record: call.record },
  );
}
