// `ops tenants`: one tenant's operator review and quotas, and every tenant's use of a month
// (docs/operations.md "ops tenants review", "quota", "usage"). The changes are setTenantReview
// (src/catalogue/reviews.ts) and setTenantQuota / removeTenantQuota (src/calls/tenant-quotas.ts), each
// audited in the tenant's trail and the instance trail.
import { Argument, type Command } from 'commander';
import { monthOf } from '../calls/month-report.ts';
import { removeTenantQuota, setTenantQuota } from '../calls/tenant-quotas.ts';
import { setTenantReview } from '../catalogue/reviews.ts';
import { monthArg, quotaMax } from './args.ts';
import { changeCommand, opsCommand, runs, tenantArg } from './commands.ts';
import { GROUPS } from './groups.ts';
import { type OpsIO, operatorActor } from './runtime.ts';
import { everyTenantUsage, everyTenantUsageText, tenantUsage, tenantUsageText } from './tenants-usage.ts';

interface ChangeOptions {
  json?: boolean;
  by: string;
}

interface UsageOptions {
  json?: boolean;
  month?: string;
}

function registerReview(tenants: Command, io: OpsIO) {
  changeCommand(tenants, 'review', "turn the operator's review of one tenant's module publishes on or off")
    .argument('<tenant>', 'the tenant, by name or id')
    .addArgument(
      new Argument(
        '<state>',
        "on: its publishes wait for the operator's review; off: it publishes itself",
      ).choices(['on', 'off']),
    )
    .action(
      runs<ChangeOptions>(io, async (session, [name, state], options) => {
        const tenant = await tenantArg(session.database.db, name as string);
        const result = await setTenantReview(
          session.database,
          tenant.id,
          state === 'on' ? 'required' : 'off',
          options.by,
        );
        session.print(
          { tenantId: tenant.id, tenantName: tenant.name, review: state, withdrawnReviews: result.withdrawn },
          () =>
            `${tenant.name}: operator review ${state}${
              state === 'off' ? ` (${result.withdrawn} pending review(s) withdrawn)` : ''
            }\n`,
        );
      }),
    )
    .addHelpText(
      'after',
      `
Off withdraws the tenant's pending reviews: those versions stay uploaded and the tenant publishes itself.

Example:
  ops tenants review acme on --by grace`,
    );
}

function registerQuota(tenants: Command, io: OpsIO) {
  changeCommand(tenants, 'quota', "set or remove one of a tenant's quotas over all its installs")
    .argument('<tenant>', 'the tenant, by name or id')
    .addArgument(new Argument('<metric>', 'what is counted').choices(['calls', 'http_requests']))
    .addArgument(new Argument('<period>', 'per UTC day or month').choices(['day', 'month']))
    .argument('<max>', 'the most of the period (a non-negative integer), or none to remove the quota')
    .action(
      runs<ChangeOptions>(io, async (session, [name, metric, period, maxText], options) => {
        const max = quotaMax(maxText as string);
        const tenant = await tenantArg(session.database.db, name as string);
        const key = { metric: metric as 'calls' | 'http_requests', period: period as 'day' | 'month' };
        const what = `${key.metric} per ${key.period}`;
        const db = session.database.db;
        const actor = operatorActor(options.by);
        if (max === 'none') {
          const removed = await removeTenantQuota(db, tenant.id, key, actor);
          session.print({ tenantId: tenant.id, tenantName: tenant.name, removed }, () =>
            removed
              ? `${tenant.name}: quota of ${what} removed (it was ${removed.max})\n`
              : `${tenant.name}: no quota of ${what} was set; nothing removed\n`,
          );
          return;
        }
        const quota = await setTenantQuota(db, tenant.id, { ...key, max }, actor);
        session.print(
          { tenantId: tenant.id, tenantName: tenant.name, quota },
          () => `${tenant.name}: quota of ${what} set to ${quota.max}; it applies from the next call\n`,
        );
      }),
    )
    .addHelpText(
      'after',
      `
Removing a quota that is not set changes nothing and exits 0.

Examples:
  ops tenants quota acme calls month 100000 --by grace
  ops tenants quota acme http_requests day none --by grace`,
    );
}

function registerUsage(tenants: Command, io: OpsIO) {
  opsCommand(
    tenants,
    'usage',
    "a month's use per install, with the tenant's quotas and the installs' budgets",
  )
    .argument('[tenant]', 'the tenant, by name or id; every tenant when left out')
    .option('--month <YYYY-MM>', 'the UTC month (default the current one)')
    .action(
      runs<UsageOptions>(io, async (session, [name], options) => {
        const month = options.month === undefined ? undefined : monthArg(options.month);
        const db = session.database.db;
        const now = new Date();
        if (name === undefined) {
          const usage = await everyTenantUsage(db, month, now, (done, total) =>
            session.progress('tenants', done, total),
          );
          session.print(usage, () => everyTenantUsageText(usage));
          return;
        }
        const tenant = await tenantArg(db, name);
        const report = await tenantUsage(db, tenant.id, month ?? monthOf(now), now);
        session.print(report, () => tenantUsageText(tenant.name, report));
      }),
    )
    .addHelpText(
      'after',
      `
With a tenant and --json the answer is the billing export: the body GET /apps/metering answers an
apps:write caller of that tenant for that month, each day included. Without a tenant: every tenant's,
as { month, tenants: [{ tenantId, tenantName, ...report }] }.

Examples:
  ops tenants usage acme --month 2026-03
  ops tenants usage --month 2026-03 --json > usage-2026-03.json`,
    );
}

export function registerTenants(program: Command, io: OpsIO): void {
  const tenants = program.command('tenants').description(GROUPS.tenants);
  registerReview(tenants, io);
  registerQuota(tenants, io);
  registerUsage(tenants, io);
}
