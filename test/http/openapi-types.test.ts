// The client types the README walkthrough's generated client is typed by (test/support/api-types.ts) are
// what openapi-typescript makes of today's description: they never go stale unseen.
import fs from 'node:fs/promises';
import { expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypes } from '../../scripts/openapi-types.ts';

it('the committed client types are what `npm run openapi:types` writes from /openapi.json today', async () => {
  const committed = await fs.readFile(API_TYPES_FILE, 'utf8');
  // A difference names the fix rather than printing thousands of lines.
  expect(committed === (await apiTypes()), 'stale: run `npm run openapi:types` and commit the result').toBe(
    true,
  );
}, 60_000);
