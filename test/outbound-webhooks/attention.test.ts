// Home lists a failing endpoint for a day (docs/outbound-webhooks.md) to holders of webhooks:read, per tenant:
// GET /attention through the real api, endpoints written as the sender leaves them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok } from '../installs/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addEndpoint } from './rows.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
}, 120_000);
afterAll(async () => platform?.close());

const HOUR = 3_600_000;

it('lists endpoints failing since less than a day, oldest first, to webhooks:read holders of the tenant', async () => {
  const alpha = await platform.tenantId('alpha');
  const beta = await platform.tenantId('beta');
  const recent = await addEndpoint(
    platform.database,
    alpha,
    'https://hooks.example.com/a?k=1',
    ['run.failed'],
    {
      failingSince: new Date(Date.now() - HOUR),
    },
  );
  const older = await addEndpoint(platform.database, alpha, 'https://crm.example.com/b', ['run.failed'], {
    failingSince: new Date(Date.now() - 23 * HOUR),
    description: 'CRM',
  });
  await addEndpoint(platform.database, alpha, 'https://old.example.com/', ['run.failed'], {
    failingSince: new Date(Date.now() - 25 * HOUR),
  });
  await addEndpoint(platform.database, alpha, 'https://fine.example.com/', ['run.failed']);
  await addEndpoint(platform.database, beta, 'https://beta.example.com/', ['run.failed'], {
    failingSince: new Date(Date.now() - HOUR),
  });

  const reader = await platform.token({ tenant: 'alpha', roles: [], permissions: ['webhooks:read'] });
  const seen = await ok<{ counts: Record<string, number>; items: Record<string, unknown>[] }>(
    await platform.fetch('/attention', { token: reader }),
  );
  expect(seen.counts).toEqual({ installChangesPending: 0, installUpgradesWaiting: 0, failingEndpoints: 2 });
  expect(seen.items).toEqual([
    {
      kind: 'webhook_endpoint_failing',
      resource: { type: 'webhook_endpoint', id: older.id },
      title: 'Webhook endpoint CRM is failing: a delivery was given up after five attempts',
      href: `/settings/webhooks/${older.id}`,
      since: expect.any(String),
    },
    {
      kind: 'webhook_endpoint_failing',
      resource: { type: 'webhook_endpoint', id: recent.id },
      title: 'Webhook endpoint hooks.example.com is failing: a delivery was given up after five attempts',
      href: `/settings/webhooks/${recent.id}`,
      since: expect.any(String),
    },
  ]);
  const analyst = await platform.token({ tenant: 'alpha', roles: ['analyst'] });
  const unseen = await ok<{ counts: Record<string, number> }>(
    await platform.fetch('/attention', { token: analyst }),
  );
  expect(unseen.counts.failingEndpoints).toBe(0);
});
