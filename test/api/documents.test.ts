// The internal documents route through the api's real internal listener, serving documents uploaded
// through the public route and checked by the platform: only a clean document of the call's tenant, and
// of its subject when the call has one; everything else reads as nonexistent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallToken } from '../../src/auth/call-token.ts';
import { storeDocument } from '../../src/documents/documents-store.ts';
import { createDocumentObjects } from '../../src/storage/index.ts';
import { bytesOf, checked, type DocumentAnswer, PDF, uploaded } from '../documents/support.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const SECRET = 'documents-test-call-token-secret-0123';

let platform: TestPlatform;
let tenantId: string;
let own: DocumentAnswer;
let otherSubject: DocumentAnswer;
let rejected: DocumentAnswer;
let pendingId: string;
let foreign: DocumentAnswer;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_CALL_TOKEN_SECRET: SECRET });
  tenantId = await platform.tenantId();
  own = await checked(
    platform,
    await uploaded(platform, {
      subjectId: 'subject-1',
      name: 'Relevé d’identité 2024.pdf',
      contentType: 'application/pdf',
      bytes: PDF,
    }),
  );
  otherSubject = await checked(
    platform,
    await uploaded(platform, {
      subjectId: 'subject-2',
      name: 'other.txt',
      contentType: 'text/plain',
      bytes: bytesOf('another subject'),
    }),
  );
  rejected = await checked(
    platform,
    await uploaded(platform, {
      subjectId: 'subject-1',
      name: 'fake.png',
      contentType: 'image/png',
      bytes: PDF,
    }),
  );
  // Stored as an upload stores it, with no check scheduled: pending (the sweep waits a minute).
  const objects = createDocumentObjects(platform.config);
  if (!objects) throw new Error('the test platform keeps documents');
  pendingId = (
    await storeDocument(
      { database: platform.database, objects },
      {
        tenantId,
        subjectId: 'subject-1',
        name: 'new.pdf',
        contentType: 'application/pdf',
        bytes: PDF,
        createdBy: 'user:test',
      },
    )
  ).id;
  const globex = await platform.token({ tenant: 'globex' });
  foreign = await checked(
    platform,
    await uploaded(platform, {
      subjectId: 'subject-1',
      name: 'foreign.pdf',
      contentType: 'application/pdf',
      bytes: PDF,
      token: globex,
    }),
    globex,
  );
  expect([own.status, otherSubject.status, rejected.status, foreign.status]).toEqual([
    'clean',
    'clean',
    'rejected',
    'clean',
  ]);
});
afterAll(async () => {
  await platform?.close();
});

const read = (base: string, callId: string, id: string, authorization?: string) =>
  fetch(`${base}/internal/app-calls/${encodeURIComponent(callId)}/documents/${encodeURIComponent(id)}`, {
    headers: authorization ? { authorization } : {},
  });

const tokenFor = (callId: string, subjectId: string | null = 'subject-1', secret = SECRET) =>
  signCallToken(secret, { tenantId, callId, subjectId });

describe('GET /internal/app-calls/:callId/documents/:id', () => {
  it("serves a clean document's bytes with its content type and its name", async () => {
    const callId = randomUUID();
    const response = await read(platform.internalUrl, callId, own.id, `Bearer ${await tokenFor(callId)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(decodeURIComponent(response.headers.get('x-document-name') ?? '')).toBe(
      'Relevé d’identité 2024.pdf',
    );
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PDF);
  });

  it('answers 401 unauthorized without a valid token for this call', async () => {
    const callId = randomUUID();
    const expired = await signCallToken(SECRET, { tenantId, callId }, 300, new Date(Date.now() - 301_000));
    const cases: Array<[string, string | undefined]> = [
      ['no token', undefined],
      ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['garbage', 'Bearer not-a-token'],
      ['another secret', `Bearer ${await tokenFor(callId, 'subject-1', 'some-other-secret-0123456789')}`],
      ['expired', `Bearer ${expired}`],
      ["another call's token", `Bearer ${await tokenFor(randomUUID())}`],
    ];
    for (const [name, authorization] of cases) {
      const response = await read(platform.internalUrl, callId, own.id, authorization);
      expect(response.status, name).toBe(401);
      const body = await response.json();
      expect(body.error.code, name).toBe('unauthorized');
      expect(body.error.requestId, name).toBe(response.headers.get('x-request-id'));
    }
  });

  it("answers 404 not_found for a pending, rejected, absent, another subject's or another tenant's document", async () => {
    const callId = randomUUID();
    const authorization = `Bearer ${await tokenFor(callId)}`;
    const cases: [string, string][] = [
      ['pending', pendingId],
      ['rejected', rejected.id],
      ['absent', randomUUID()],
      ["another subject's", otherSubject.id],
      ["another tenant's", foreign.id],
      ['not an id', 'bad.id'],
      ['not an id either', 'a b'],
      ['not a uuid', 'doc-1'],
    ];
    for (const [what, id] of cases) {
      const response = await read(platform.internalUrl, callId, id, authorization);
      expect(response.status, what).toBe(404);
      expect((await response.json()).error.code, what).toBe('not_found');
    }
  });

  it("lets a call without a subject read any of its tenant's clean documents, and only those", async () => {
    const callId = randomUUID();
    const authorization = `Bearer ${await tokenFor(callId, null)}`;
    const response = await read(platform.internalUrl, callId, otherSubject.id, authorization);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toBe('another subject');
    for (const id of [pendingId, rejected.id, foreign.id])
      expect((await read(platform.internalUrl, callId, id, authorization)).status, id).toBe(404);
  });

  it('is not on the public listener', async () => {
    const callId = randomUUID();
    const response = await read(platform.url, callId, own.id, `Bearer ${await tokenFor(callId)}`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toMatch(/^no route GET/);
  });
});

describe('deployments without object storage or a call-token secret', () => {
  it('answers 404 for every document without storage, and has no route without the secret', async () => {
    const withoutStorage = await startTestPlatform({ APP_CALL_TOKEN_SECRET: SECRET, MODULE_STORAGE: 'off' });
    const withoutSecret = await startTestPlatform({});
    try {
      const callId = randomUUID();
      const authorization = `Bearer ${await tokenFor(callId)}`;
      const none = await read(withoutStorage.internalUrl, callId, randomUUID(), authorization);
      expect(none.status).toBe(404);
      expect((await none.json()).error.code).toBe('not_found');
      // Without the secret no token can be checked: the route is not there at all.
      const absent = await read(withoutSecret.internalUrl, callId, randomUUID(), authorization);
      expect(absent.status).toBe(404);
      expect((await absent.json()).error.message).toMatch(/^no route GET/);
    } finally {
      await withoutStorage.close();
      await withoutSecret.close();
    }
  });
});
