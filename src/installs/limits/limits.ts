// An install's limits record (docs/limits-and-metering.md "The limits record"):
// its currency, a price per action in micros of that currency, and at most six budgets, one per metric
// and period. A save replaces the whole record. The quota check (src/calls/quota-check.ts) weighs the
// budgets before every attempt; metering (src/calls/metering.ts) charges the prices.
import { sql } from 'drizzle-orm';
import { conflict, type Issue, validationError } from '../../http/errors.ts';
import { audit, type InstallContext, readVersion, requireInstall } from '../service.ts';
import { appInstallLimits } from '../tables.ts';
import { type LimitsRecord, readLimits } from './limits-store.ts';

export const MAX_BUDGETS_PER_INSTALL = 6;

/** JSON Pointer escaping of one key (RFC 6901), for issues at /prices/<action>. */
const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

let currencies: ReadonlySet<string> | undefined;
/** ISO 4217 codes as this runtime's ICU knows them. */
export function isCurrency(code: string): boolean {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  return currencies.has(code);
}

/**
 * The rules of a record the route's schema already shaped (types, ranges, at most six budgets): a known
 * currency, one needed by any price or spend budget, prices naming actions of the running version, and
 * one budget per metric and period. Every issue at once, each at its JSON Pointer.
 */
export function limitsIssues(record: LimitsRecord, actions: readonly string[]): Issue[] {
  const issues: Issue[] = [];
  if (record.currency !== null && !isCurrency(record.currency)) {
    issues.push({ path: '/currency', message: `${record.currency} is not an ISO 4217 currency` });
  }
  const priced = Object.keys(record.prices);
  const spendBudget = record.budgets.some((b) => b.metric === 'spend');
  if (record.currency === null && (priced.length > 0 || spendBudget)) {
    issues.push({ path: '/currency', message: 'prices and spend budgets need a currency' });
  }
  for (const action of priced) {
    if (!actions.includes(action)) {
      issues.push({
        path: `/prices/${pointerKey(action)}`,
        message: `the running version has no action ${action}`,
      });
    }
  }
  const seen = new Set<string>();
  record.budgets.forEach((budget, index) => {
    const key = `${budget.metric}/${budget.period}`;
    if (seen.has(key)) {
      issues.push({
        path: `/budgets/${index}`,
        message: `a second ${budget.metric} budget per ${budget.period}; one per metric and period`,
      });
    }
    seen.add(key);
  });
  return issues;
}

/** GET /app-installs/:install/limits. */
export async function getLimits(ctx: InstallContext, name: string): Promise<LimitsRecord> {
  const db = ctx.database.db;
  const install = await requireInstall(db, ctx.principal.tenantId, name, false);
  return readLimits(db, ctx.principal.tenantId, install.id);
}

/**
 * PUT /app-installs/:install/limits: replaces the record. A currency other than the one the install
 * spent in this UTC month is 409 conflict: a month's spend stays in one currency, so spend budgets and
 * reports add like with like. Null is no other currency (it stops charging) and is allowed.
 */
export async function saveLimits(
  ctx: InstallContext,
  name: string,
  record: LimitsRecord,
  now: Date = new Date(),
): Promise<LimitsRecord> {
  const tenantId = ctx.principal.tenantId;
  return ctx.database.db.transaction(async (tx) => {
    // The row lock serializes saves of one install (and with its other writes).
    const install = await requireInstall(tx, tenantId, name, true);
    const version = await readVersion(tx, install.versionId);
    const issues = limitsIssues(
      record,
      version.manifest.actions.map((a) => a.name),
    );
    if (issues.length > 0) throw validationError(issues, 'the limits record is not valid');

    if (record.currency !== null) {
      const spent = (await ctx.records.metering.monthSpendCurrencies(tx, tenantId, install.id, now)).filter(
        (c) => c !== record.currency,
      );
      if (spent.length > 0) {
        throw conflict(
          `this month's spend of install ${install.name} is in ${spent.join(', ')}; the currency can change next month`,
          { currency: record.currency, spentCurrency: spent[0], month: now.toISOString().slice(0, 7) },
        );
      }
    }

    const before = await readLimits(tx, tenantId, install.id);
    const after: LimitsRecord = {
      currency: record.currency,
      prices: record.prices,
      budgets: record.budgets.map((b) => ({ metric: b.metric, period: b.period, max: b.max })),
    };
    await tx
      .insert(appInstallLimits)
      .values({ installId: install.id, tenantId, ...after })
      .onConflictDoUpdate({
        target: appInstallLimits.installId,
        set: {
          currency: after.currency,
          prices: after.prices,
          budgets: after.budgets,
          updatedAt: sql`now()`,
        },
      });
    await audit(tx, ctx, 'app.limits.updated', install, { before, after });
    return after;
  });
}
