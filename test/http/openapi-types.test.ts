// What the console and the README walkthrough's client are typed by (console/src/api/schema.ts) is what
// openapi-typescript makes of today's description, and the console's role table (console/src/auth/roles.ts)
// is the server's: neither goes stale unseen.
import fs from 'node:fs/promises';
import { expect, it } from 'vitest';
import { API_TYPES_FILE, apiTypes, ROLES_FILE, roleTable } from '../../scripts/openapi-types.ts';

it('the committed client types are what `npm run openapi:types` writes from /openapi.json today', async () => {
  const committed = await fs.readFile(API_TYPES_FILE, 'utf8');
  // A difference names the fix rather than printing thousands of lines.
  expect(committed === (await apiTypes()), 'stale: run `npm run openapi:types` and commit the result').toBe(
    true,
  );
}, 60_000);

it('the console’s committed role table is what `npm run openapi:types` writes from src/auth/permissions.ts', async () => {
  expect(await fs.readFile(ROLES_FILE, 'utf8')).toBe(roleTable());
});
