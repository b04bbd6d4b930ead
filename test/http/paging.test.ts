// Paging of every list (GET /notifications, /audit-events, /app-install-changes): offset is bounded at
// 100,000, so a huge one is refused as input (400 at query.offset) instead of reaching the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OFFSET } from '../../src/http/paging.ts';
import { type CataloguePlatform, startCataloguePlatform } from '../catalogue/support.ts';
import { expectError } from './expect.ts';

let platform: CataloguePlatform;
beforeAll(async () => {
  platform = await startCataloguePlatform();
}, 120_000);
afterAll(async () => platform?.close());

const LISTS = ['/notifications', '/audit-events', '/app-install-changes'];

describe('offset', () => {
  it('is at most 100,000', () => {
    expect(MAX_OFFSET).toBe(100_000);
  });

  for (const list of LISTS) {
    it(`${list}: a huge offset is 400 validation_error at query.offset`, async () => {
      for (const offset of ['9223372036854775807', '100001', '1e30']) {
        const error = await expectError(
          await platform.fetch(`${list}?offset=${offset}`),
          400,
          'validation_error',
        );
        expect(error.details).toEqual({ issues: [{ path: 'query.offset', message: expect.any(String) }] });
      }
    });

    it(`${list}: the largest offset answers an empty page`, async () => {
      const response = await platform.fetch(`${list}?offset=100000`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ items: [], totalIsEstimate: false });
    });
  }
});
