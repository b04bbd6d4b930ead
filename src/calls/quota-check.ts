// Step 3 of an attempt (docs/limits-and-metering.md "The check before an attempt"): the operator's
// quotas of the tenant, then the install's budgets, weighed against what the periods used so far. A
// refusal is 429 app_quota_exceeded, recorded and metered nowhere; the first refusal of each limit and
// period appends app.quota.exceeded and notifies holders of apps:write. The check reads without locks:
// it is soft under concurrency: calls racing at a limit may pass it by at most the calls in flight.
import type { Actor } from '../audit/trail.ts';
import { recordAudit } from '../audit/trail.ts';
import type { Database, Queryable } from '../db/pool.ts';
import { ApiError } from '../http/errors.ts';
import { type LimitsRecord, readLimits } from '../installs/index.ts';
import { notify } from '../notifications/index.ts';
import { countQuotaRefusal } from '../telemetry/index.ts';
import { usageOf } from './metering.ts';
import {
  actionPrice,
  limitKey,
  type QuotaRefusal,
  quotaRefusal,
  refusalMessage,
  type TenantQuota,
} from './quotas.ts';
import { appQuotaRefusals } from './tables.ts';
import { tenantQuotasOf } from './tenant-quotas.ts';

export interface QuotaSubject {
  tenantId: string;
  installId: string;
  /** The install's current name (details.install) and its app, for the event. */
  installName: string;
  appName: string;
  action: string;
}

export interface QuotaCheckOptions {
  now?: Date;
  /** Who made the call; the audit event's actor. Default: the platform's quota check. */
  actor?: Actor;
  requestId?: string | null;
}

/** The actor of a refusal nobody in particular made (a workflow step's call, a rule's). */
export const QUOTA_CHECK_ACTOR: Actor = { type: 'system', id: 'quota-check', name: 'quota check' };

/** details of 429 app_quota_exceeded and data of app.quota.exceeded: one shape for both. */
export function refusalDetails(refusal: QuotaRefusal, installName: string) {
  return {
    scope: refusal.scope,
    metric: refusal.metric,
    period: refusal.period,
    max: refusal.max,
    used: refusal.used,
    currency: refusal.currency,
    periodStart: refusal.periodStart.toISOString(),
    resetsAt: refusal.resetsAt.toISOString(),
    install: installName,
  };
}

/** What the check weighs: the tenant's quotas and the install's limits record. */
export interface QuotasAndLimits {
  quotas: TenantQuota[];
  limits: LimitsRecord;
}

/** The action's price and the install's currency the attempt was admitted under; metering charges it. */
export interface AdmittedPrice {
  currency: string | null;
  priceMicros: number;
}

/**
 * Throws 429 app_quota_exceeded when a quota or budget refuses the attempt; otherwise answers the price
 * it was admitted under, read from the same limits record (so metering need not read it again).
 */
export async function checkQuotas(
  database: Database,
  subject: QuotaSubject,
  options: QuotaCheckOptions = {},
  read?: QuotasAndLimits,
): Promise<AdmittedPrice> {
  const now = options.now ?? new Date();
  const db = database.db;
  // Read with the call's install (resolveCall) when given; else here.
  const { quotas, limits } = read ?? (await readQuotasAndLimits(db, subject));
  const price = { currency: limits.currency, priceMicros: actionPrice(limits, subject.action) };
  // Most installs have no limits at all: then there is no use to sum.
  if (quotas.length === 0 && limits.budgets.length === 0) return price;

  const usage = await usageOf(
    db,
    { tenantId: subject.tenantId, installId: subject.installId, currency: limits.currency },
    now,
  );
  const refusal = quotaRefusal({
    quotas,
    budgets: limits.budgets,
    currency: limits.currency,
    price: price.priceMicros,
    usage,
    now,
  });
  if (!refusal) return price;

  const details = refusalDetails(refusal, subject.installName);
  await recordFirstRefusal(database, subject, refusal, details, options);
  countQuotaRefusal();
  throw new ApiError('app_quota_exceeded', refusalMessage(refusal, subject.installName), details);
}

async function readQuotasAndLimits(db: Queryable, subject: QuotaSubject): Promise<QuotasAndLimits> {
  const [quotas, limits] = await Promise.all([
    tenantQuotasOf(db, subject.tenantId),
    readLimits(db, subject.tenantId, subject.installId),
  ]);
  return { quotas, limits };
}

/**
 * The refusal itself records nothing with the call, so its trace goes in a short transaction of its
 * own: the app_quota_refusals row, and only when that insert took (the first refusal of this limit and
 * period, whichever worker got there first), the audit event and the notification.
 */
async function recordFirstRefusal(
  database: Database,
  subject: QuotaSubject,
  refusal: QuotaRefusal,
  details: ReturnType<typeof refusalDetails>,
  options: QuotaCheckOptions,
) {
  await database.db.transaction(async (tx) => {
    const inserted = await tx
      .insert(appQuotaRefusals)
      .values({
        tenantId: subject.tenantId,
        limitKey: limitKey(refusal, subject.installId),
        periodStart: refusal.periodStart,
      })
      .onConflictDoNothing()
      .returning({ limitKey: appQuotaRefusals.limitKey });
    if (inserted.length === 0) return;
    const resource = { type: 'app_install', id: subject.installId };
    const { install, ...limit } = details;
    const data = { install, app: subject.appName, ...limit };
    await recordAudit(tx, {
      tenantId: subject.tenantId,
      action: 'app.quota.exceeded',
      actor: options.actor ?? QUOTA_CHECK_ACTOR,
      resource,
      data,
      requestId: options.requestId ?? null,
    });
    await notify(tx, {
      tenantId: subject.tenantId,
      kind: 'app_quota_exceeded',
      audiencePermission: 'apps:write',
      resource,
      data,
    });
  });
}
