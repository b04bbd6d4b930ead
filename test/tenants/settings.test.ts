import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

describe('GET /tenants/me', () => {
  it('answers the caller tenant with the retention settings', async () => {
    const response = await platform.fetch('/tenants/me');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      id: await platform.tenantId('acme'),
      name: 'acme',
      createdAt: expect.any(String),
      retention: { appCallbackDays: 90, submissionEventDays: 90 },
    });
  });
});
