// Request log lines never carry a subject id or any other path parameter or query as sent (docs/operations.md
// "Logs"): tenants use e-mail addresses as subject ids. The route's pattern is logged; a request no route
// takes logs its path with every segment that is not a word of the API's routes masked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maskedPath, routeWords } from '../../src/http/log-path.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { linesOf } from './expect.ts';

describe('routeWords', () => {
  it.each([
    ['/subjects/:subjectId/documents', ['subjects', 'documents']],
    ['/subjects/:subjectId/documents/:id/content', ['subjects', 'documents', 'content']],
    ['/docs/*', ['docs']],
    ['/', []],
    ['/health/ready', ['health', 'ready']],
  ])('%s → %j', (pattern, words) => {
    expect(routeWords(pattern)).toEqual(words);
  });
});

describe('maskedPath', () => {
  const words = new Set(['subjects', 'documents', 'content', 'health', 'tenants', 'me']);
  it.each([
    ['an e-mail subject id', '/subjects/alice@example.com/documents', '/subjects/*/documents'],
    [
      'an encoded one',
      '/subjects/alice%40example.com/documents/x/content',
      '/subjects/*/documents/*/content',
    ],
    ['a query string', '/tenants/me?email=bob@example.com', '/tenants/me'],
    ['a fragment', '/tenants/me#bob@example.com', '/tenants/me'],
    ['a path of words only', '/health', '/health'],
    ['an unknown word', '/subjectz/alice/documents', '/*/*/documents'],
    ['a trailing slash', '/subjects/alice/', '/subjects/*/'],
    ['the root', '/', '/'],
    ['doubled slashes', '//subjects//bob', '//subjects//*'],
  ])('%s: %s → %s', (_case, url, masked) => {
    expect(maskedPath(url, words)).toBe(masked);
  });
});

describe('request log lines', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => {
    await platform?.close();
  });

  const SUBJECT = 'alice.applicant@example.com';
  const logged = (requestId: string) =>
    linesOf(platform.logs, requestId).then((lines) => JSON.stringify(lines));

  it('a route taking a subject id logs its pattern, never the id', async () => {
    const response = await platform.fetch(
      `/subjects/${encodeURIComponent(SUBJECT)}/documents?status=accepted`,
      { headers: { 'x-request-id': 'subject-email-1' } },
    );
    await response.text();
    const [line] = await linesOf(platform.logs, 'subject-email-1');
    expect(line).toMatchObject({ route: '/subjects/:subjectId/documents', method: 'GET' });
    const text = await logged('subject-email-1');
    expect(text).not.toContain('alice');
    expect(text).not.toContain('example.com');
    expect(text).not.toContain('accepted');
  });

  it('the same id unencoded, and one deeper in the path', async () => {
    const response = await platform.fetch(
      `/subjects/${SUBJECT}/documents/0b5f6c1e-0000-4000-8000-000000000000`,
      {
        headers: { 'x-request-id': 'subject-email-2' },
      },
    );
    await response.text();
    const text = await logged('subject-email-2');
    expect(text).toContain('/subjects/:subjectId/documents/:id');
    expect(text).not.toContain('alice');
    expect(text).not.toContain('0b5f6c1e');
  });

  it('a path no route takes logs its words and masks the rest', async () => {
    const response = await platform.fetch(`/subjects/${SUBJECT}/nonsense?email=${SUBJECT}`, {
      headers: { 'x-request-id': 'subject-email-3' },
    });
    expect(response.status).toBe(404);
    const [line] = await linesOf(platform.logs, 'subject-email-3');
    expect(line).toMatchObject({ route: null, path: '/subjects/*/*', statusCode: 404, code: 'not_found' });
    expect(JSON.stringify(line)).not.toContain('alice');
  });
});
