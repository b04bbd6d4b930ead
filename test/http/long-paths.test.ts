// Path parameters longer than the route allows answer what any bad path parameter answers, 400
// validation_error at `params.<name>` (docs/api-conventions.md), never the router's own 414: the router
// takes parameters as long as a request line can be, and the route's schema decides.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError } from './expect.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

const NAME_PATTERN = 'must match pattern "^[a-z0-9][a-z0-9-]{0,99}$"';

describe('a path parameter longer than the route allows', () => {
  it.each([
    ['/apps/{name}, one character too long', `/apps/${'a'.repeat(101)}`, 'params.name', NAME_PATTERN],
    [
      '/app-installs/{install}, 5,000 characters',
      `/app-installs/${'b'.repeat(5000)}`,
      'params.install',
      NAME_PATTERN,
    ],
    [
      '/app-installs/{install}/secrets/{secret}',
      `/app-installs/vendor/secrets/${'S'.repeat(300)}`,
      'params.secret',
      'must NOT have more than 64 characters',
    ],
    ['/workflow-runs/{id}', `/workflow-runs/${'c'.repeat(200)}`, 'params.id', 'must match format "uuid"'],
  ])('%s: 400 validation_error at the parameter', async (_case, path, at, message) => {
    const method = path.includes('/secrets/') ? 'DELETE' : 'GET';
    const error = await expectError(await platform.fetch(path, { method }), 400, 'validation_error');
    expect(error.details).toEqual({ issues: [{ path: at, message }] });
  });

  it('still answers 404 for a long segment of a path no route has', async () => {
    const error = await expectError(await platform.fetch(`/nowhere/${'d'.repeat(500)}`), 404, 'not_found');
    expect(error.message).toMatch(/^no route GET \/nowhere\/d+$/);
  });

  it('at the longest the route allows, reaches the route (404 for a key no definition has)', async () => {
    const key = 'e'.repeat(64);
    const error = await expectError(await platform.fetch(`/workflow-definitions/${key}`), 404, 'not_found');
    expect(error.message).toContain(key);
  });
});
