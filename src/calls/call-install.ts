// A call of an install by a workflow step, an app rule or a fallback (docs/calls.md, docs/runs.md):
// the install the call names — by its name or
// a kept alias — read with the version it runs in one query, then one attempt through the one pipeline
// (attempt.ts): enabled required, through the circuit, recorded. An unknown name is 404 unknown_install
// and is recorded nowhere (there is no install to record it under).
import { and, eq, inArray, or, sql } from 'drizzle-orm';
import { blocksOfVersionRow } from '../catalogue/blocks.ts';
import { versionColumnsWithoutManifest, withManifest } from '../catalogue/manifests.ts';
import { appBlocks, appVersions } from '../catalogue/tables.ts';
import type { Db } from '../db/pool.ts';
import { preparedOn } from '../db/prepared.ts';
import {
  appInstallAliases,
  appInstallCircuits,
  appInstallLimits,
  appInstalls,
  type CircuitRead,
  dbNow,
  type InstallRow,
  limitsOfRow,
  readsDocuments,
  type StoredCache,
  type StoredSecret,
  storedWithInstallColumns,
  storedWithInstallOf,
  unknownInstall,
  unknownInstallOf,
  type VersionRow,
  webhookUrl,
} from '../installs/index.ts';
import type { ActionDeclaration } from '../module/index.ts';
import { type AttemptDeps, type AttemptOptions, type AttemptOutcome, runAttempt } from './attempt.ts';
import type { InvocationContext } from './invocations.ts';
import type { QuotasAndLimits } from './quota-check.ts';
import { tenantQuotasJson } from './tenant-quotas.ts';

export interface InstallCall {
  tenantId: string;
  /** The name the call used: the install's name or one of its kept aliases. */
  install: string;
  action: string;
  input: unknown;
  /** The step's or rule's inputMapping the input was built with (checked against the action's mappable). */
  inputMapping?: Record<string, string>;
  idempotencyKey: string | null;
  subjectId: string | null;
  /** Epoch ms by which the step or rule evaluation must end. */
  deadline: number;
  record: InvocationContext;
  /** A step's: opens the vendor session of a pending answer (AttemptOptions.openSession). */
  openSession?: AttemptOptions['openSession'];
}

/**
 * The install a call names, the version it runs, the action that version declares (or null), the reason
 * of a block covering that version (or null) and its circuit read in the same query with the database's
 * now (the block check of step 1 and step 2 then cost no query of their own).
 */
export interface ResolvedCall {
  install: InstallRow;
  version: VersionRow;
  action: ActionDeclaration | null;
  blockReason: string | null;
  circuit: CircuitRead;
  /** The tenant's quotas and the install's limits, which the quota check (step 3) then need not read. */
  limits: QuotasAndLimits;
  /** The install's cache generation and stored values, which step 5 then need not read. */
  cache: StoredCache;
  /** The install's sealed secrets, which admission then need not read. */
  secrets: StoredSecret[];
}

/**
 * The tenant's install of that name, or the one keeping it as an alias, with its version, in one query
 * (a name and an alias never collide: they share the tenant's namespace); else 404 unknown_install.
 * `currentName`: the install of that current name only, as the /app-installs/:install routes take it
 * (a kept alias then answers 404 naming the install's current name).
 */
export async function resolveCall(
  db: Db,
  tenantId: string,
  name: string,
  action: string,
  options: { currentName?: boolean } = {},
): Promise<ResolvedCall> {
  const query = options.currentName ? installByCurrentName(db) : installByNameOrAlias(db);
  const [row] = await query.execute({ tenantId, name });
  if (!row) throw options.currentName ? await unknownInstallOf(db, tenantId, name) : unknownInstall(name);
  const { install, blockReason, circuit, now, limits, quotas } = row;
  const version = await withManifest(db, row.version);
  const { cache, secrets } = storedWithInstallOf(install, row);
  return {
    install,
    version,
    action: version.manifest.actions?.find((a) => a.name === action) ?? null,
    blockReason,
    circuit: { row: circuit, now },
    limits: { quotas, limits: limitsOfRow(limits) },
    cache,
    secrets,
  };
}

const tenantId = sql.placeholder('tenantId');
const name = sql.placeholder('name');

/**
 * The call's reads in one query, its parameters the tenant and the name: the install with its version
 * (its manifest kept by the process: catalogue/manifests.ts), a block covering that version, its circuit
 * with the database's now, its limits, the tenant's quotas, and the install's stored cached values and
 * sealed secrets.
 */
const resolveQuery = (db: Db, currentName: boolean) => {
  const aliased = db
    .select({ installId: appInstallAliases.installId })
    .from(appInstallAliases)
    .where(and(eq(appInstallAliases.tenantId, tenantId), eq(appInstallAliases.alias, name)));
  const block = db.select({ reason: appBlocks.reason }).from(appBlocks).where(blocksOfVersionRow()).limit(1);
  return db
    .select({
      install: appInstalls,
      version: versionColumnsWithoutManifest,
      blockReason: sql<string | null>`(${block})`,
      circuit: appInstallCircuits,
      now: dbNow,
      limits: appInstallLimits,
      quotas: tenantQuotasJson(tenantId),
      ...storedWithInstallColumns,
    })
    .from(appInstalls)
    .innerJoin(appVersions, eq(appVersions.id, appInstalls.versionId))
    .leftJoin(appInstallCircuits, eq(appInstallCircuits.installId, appInstalls.id))
    .leftJoin(
      appInstallLimits,
      and(
        eq(appInstallLimits.installId, appInstalls.id),
        eq(appInstallLimits.tenantId, appInstalls.tenantId),
      ),
    )
    .where(
      and(
        eq(appInstalls.tenantId, tenantId),
        currentName
          ? eq(appInstalls.name, name)
          : or(eq(appInstalls.name, name), inArray(appInstalls.id, aliased)),
      ),
    )
    .limit(1)
    .prepare(currentName ? 'resolve_call_current_name' : 'resolve_call');
};
const installByNameOrAlias = preparedOn((db) => resolveQuery(db, false));
const installByCurrentName = preparedOn((db) => resolveQuery(db, true));

/** One attempt of a call whose install is resolved. */
export function callResolved(
  deps: AttemptDeps,
  { install, version, blockReason, circuit, limits, cache, secrets }: ResolvedCall,
  call: InstallCall,
): Promise<AttemptOutcome> {
  return runAttempt(
    deps,
    {
      install,
      calledAs: call.install,
      version,
      action: call.action,
      input: call.input,
      ...(call.inputMapping ? { inputMapping: call.inputMapping } : {}),
      idempotencyKey: call.idempotencyKey,
      subjectId: call.subjectId,
      callbackUrl: webhookUrl(version.manifest, install.config, install.id, deps.webhookBase ?? null),
      // Steps and rules hold no caller's permissions: the install's own reading of documents decides.
      mayReadDocuments: readsDocuments(version.manifest, install.config),
      deadline: call.deadline,
      blockReason,
      circuit,
      limits,
      cache,
      secrets,
    },
    {
      requireEnabled: true,
      circuit: true,
      record: call.record,
      ...(call.openSession ? { openSession: call.openSession } : {}),
    },
  );
}

/** Resolves the install the call names, then makes one attempt. */
export async function callInstall(deps: AttemptDeps, call: InstallCall): Promise<AttemptOutcome> {
  return callResolved(
    deps,
    await resolveCall(deps.database.db, call.tenantId, call.install, call.action),
    call,
  );
}
