// `ops tenants usage` through the real command on the real api's database (docs/operations.md "ops
// tenants usage"): with a tenant and --json it is the billing export and equals GET /apps/metering of an
// apps:write caller of that tenant, month for month; without a tenant, every tenant's report; on a
// terminal, aligned tables with every name escaped and progress over the tenants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MeteredCall, meterApart, meterCall } from '../../src/calls/metering.ts';
import { tenants } from '../../src/tenants/tables.ts';
import { insertInstall, type LimitsRow } from '../calls/support.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { ok } from '../installs/support.ts';
import { opsOn } from './platform-support.ts';

let platform: CataloguePlatform;
const ops = opsOn(() => platform);
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

const EUR = { currency: 'EUR', priceMicros: 2_500_000 };
const at = (iso: string) => new Date(iso);

/** An install of the tenant and a meter of its calls. */
async function installOf(tenantId: string, name: string, limits?: LimitsRow, actions?: string[]) {
  const install = await insertInstall(platform.database, tenantId, name, limits, actions);
  const meter = (now?: Date, over: Partial<MeteredCall> = {}) =>
    meterCall(
      platform.database.db,
      {
        tenantId,
        installId: install.id,
        installName: name,
        appName: 'echo',
        action: 'echo',
        httpRequests: 1,
        charged: false,
        ...over,
      },
      now,
    );
  /** A vendor webhook or hand-off the module ran on, counted apart from calls. */
  const apart = (counter: 'webhooks' | 'handoffs', now: Date) =>
    meterApart(
      platform.database.db,
      { tenantId, installId: install.id, installName: name, appName: 'echo', action: 'echo' },
      counter,
      now,
    );
  return { id: install.id, meter, apart };
}

/** The month report the api answers the tenant's administrator (apps:write: spend included). */
const metering = async (tenant: string, query = '') =>
  ok(await platform.fetch(`/apps/metering${query}`, { token: await platform.token({ tenant }) }));

let billedId: string;
beforeAll(async () => {
  billedId = await platform.tenantId('billed');
  const limits = {
    currency: 'EUR',
    prices: { echo: 2_500_000 },
    budgets: [
      { metric: 'calls' as const, period: 'day' as const, max: 2 },
      { metric: 'spend' as const, period: 'month' as const, max: 50_000_000 },
    ],
  };
  const kyc = await installOf(billedId, 'kyc', limits, ['echo']);
  const aml = await installOf(billedId, 'aml');
  await kyc.meter(at('2025-03-03T08:00:00Z'), { charged: true, price: EUR });
  await kyc.meter(at('2025-03-31T23:59:59Z'), {
    charged: true,
    price: { currency: 'USD', priceMicros: 100 },
  });
  await aml.meter(at('2025-03-03T10:00:00Z'), { httpRequests: 4 });
  await kyc.apart('webhooks', at('2025-03-03T09:00:00Z'));
  await kyc.apart('webhooks', at('2025-03-31T09:00:00Z'));
  await kyc.apart('handoffs', at('2025-03-31T09:00:00Z'));
  await kyc.meter(undefined, { charged: true, price: EUR });
  await kyc.meter(undefined, { charged: true, price: EUR });
  await ops.json(['tenants', 'quota', 'billed', 'calls', 'month', '100000', '--by', 'grace']);
}, 60_000);

describe('ops tenants usage <tenant> --json: the billing export', () => {
  it('equals GET /apps/metering for that tenant and month, each day included', async () => {
    const exported = await ops.json(['tenants', 'usage', 'billed', '--month', '2025-03']);
    const api = await metering('billed', '?month=2025-03');
    expect(exported).toEqual(api);
    // What makes it the billing export: the days, spend per currency, budgets and quotas.
    expect(exported).toMatchObject({
      month: '2025-03',
      total: {
        calls: 3,
        httpRequests: 6,
        spend: [
          { currency: 'EUR', micros: 2_500_000 },
          { currency: 'USD', micros: 100 },
        ],
        webhooks: 2,
        handoffs: 1,
      },
      days: [
        { day: '2025-03-03', calls: 2, httpRequests: 5, webhooks: 1, handoffs: 0 },
        { day: '2025-03-31', calls: 1, httpRequests: 1, webhooks: 1, handoffs: 1 },
      ],
    });
  });

  it('equals it for the current month by default, quotas and budgets included', async () => {
    const exported = await ops.json<{ quotas: unknown[]; installs: { budgets: unknown[] }[] }>([
      'tenants',
      'usage',
      billedId,
    ]);
    expect(exported).toEqual(await metering('billed'));
    expect(exported.quotas).toHaveLength(1);
    expect(exported.installs.map((i) => i.budgets.length)).toEqual([0, 2]);
  });
});

describe('ops tenants usage', () => {
  it('prints one tenant’s month for a terminal: totals, installs with budgets, quotas; no days', async () => {
    const result = await ops.run(['tenants', 'usage', 'billed', '--month', '2025-03']);
    expect(result.code, result.stderr).toBe(0);
    const [totals, installs, quotas] = result.stdout.split('\n\n');
    expect(totals).toBe(
      [
        'tenant         billed',
        'month          2025-03',
        'calls          3',
        'http requests  6',
        'spend          2.5 EUR, 0.0001 USD',
        'webhooks       2',
        'handoffs       1',
      ].join('\n'),
    );
    const lines = installs?.split('\n') ?? [];
    expect(lines[0]).toBe(
      'INSTALL  APP   REMOVED  CALLS  HTTP_REQUESTS  SPEND                WEBHOOKS  HANDOFFS  BUDGETS',
    );
    expect(lines[1]).toBe(
      'aml      echo  -        1      4              -                    0         0         -',
    );
    expect(lines[2]).toMatch(
      /^kyc {6}echo {2}- {8}2 {6}2 {14}2\.5 EUR, 0\.0001 USD {2}2 {9}1 {9}calls\/day 2\/2 reached, spend\/month 5 EUR\/50 EUR$/,
    );
    expect(quotas).toMatch(
      /^QUOTA {8}MAX {5}USED {2}REACHED {2}RESETS\ncalls\/month {2}100000 {2}2 {5}- {8}\d{4}-/,
    );
    expect(result.stdout).not.toContain('2025-03-03');
  });

  it('escapes what a name holds on a terminal, whatever the database holds', async () => {
    const tenantId = await platform.tenantId('hostile');
    // Names are checked on every write; this one goes straight into the database.
    const evil = await installOf(tenantId, 'evil\u001b[2J\u202egpj.exe\nfake-row');
    await evil.meter(at('2025-03-05T00:00:00Z'));
    const result = await ops.run(['tenants', 'usage', 'hostile', '--month', '2025-03']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('evil\\u{1b}[2J\\u{202e}gpj.exe\\nfake-row  echo');
    for (const unsafe of ['\u001b', '\u202e', '\nfake-row']) expect(result.stdout).not.toContain(unsafe);
    // JSON carries the name as it is.
    const json = await ops.json<{ installs: { installName: string }[] }>(['tenants', 'usage', 'hostile']);
    expect(json.installs[0]?.installName).toBe('evil\u001b[2J\u202egpj.exe\nfake-row');
  });

  it('answers every tenant without one: { month, tenants } by name, each entry the tenant’s report', async () => {
    const every = await ops.json<{ month: string; tenants: Record<string, unknown>[] }>([
      'tenants',
      'usage',
      '--month',
      '2025-03',
    ]);
    const names = (await platform.database.db.select({ name: tenants.name }).from(tenants)).map(
      (t) => t.name,
    );
    expect(every.month).toBe('2025-03');
    expect(every.tenants.map((t) => t.tenantName)).toEqual([...names].sort());
    const { tenantId, tenantName, ...billed } = every.tenants.find((t) => t.tenantName === 'billed') ?? {};
    expect([tenantId, tenantName]).toEqual([billedId, 'billed']);
    expect(billed).toEqual(await metering('billed', '?month=2025-03'));
  });

  it('prints every tenant one line each, with progress on a terminal only', async () => {
    const result = await ops.run(['tenants', 'usage', '--month', '2025-03'], { tty: true });
    expect(result.code).toBe(0);
    const count = (await platform.database.db.select().from(tenants)).length;
    expect(result.stderr).toMatch(new RegExp(`\\rtenants 1/${count}.*\\rtenants ${count}/${count}\\n$`, 's'));
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('month 2025-03');
    expect(lines[1]).toMatch(/^TENANT +CALLS +HTTP_REQUESTS +SPEND +WEBHOOKS +HANDOFFS +INSTALLS +QUOTAS$/);
    expect(lines.find((l) => l.startsWith('billed '))).toMatch(
      /^billed +3 +6 +2\.5 EUR, 0\.0001 USD +2 +1 +2 +calls\/month 2\/100000$/,
    );
    expect(lines).toHaveLength(count + 2);
    const quiet = await ops.run(['tenants', 'usage', '--month', '2025-03', '--json'], { tty: true });
    expect(quiet.stderr).toBe('');
  });

  it('refuses a malformed month (exit 2) and an unknown tenant (404 not_found)', async () => {
    for (const month of ['2025-13', '2025-3', '2025-03-01']) {
      const result = await ops.run(['tenants', 'usage', 'billed', '--month', month]);
      expect(result.code, month).toBe(2);
      expect(result.stderr).toMatch(/^ops: --month: expected YYYY-MM/);
    }
    const unknown = await ops.run(['tenants', 'usage', 'nobody']);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'not_found: no tenant is named nobody\n']);
  });
});
