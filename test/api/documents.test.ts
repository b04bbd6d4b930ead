// The internal documents route through the api's real internal listener, with a document source made
// here standing for the documents area's store.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallToken } from '../../src/auth/call-token.ts';
import { documentMap } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const SECRET = 'documents-test-call-token-secret-0123';
const tenantId = randomUUID();
const otherTenant = randomUUID();

const documents = documentMap({
  'doc-1': {
    tenantId,
    subjectId: 'subject-1',
    name: 'Relevé d’identité 2024.pdf',
    contentType: 'application/pdf',
    bytes: new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]),
  },
  'doc-2': {
    tenantId,
    subjectId: 'subject-2',
    name: 'other.txt',
    contentType: 'text/plain; charset=utf-8',
    bytes: new TextEncoder().encode('another subject'),
  },
  'doc-3': {
    tenantId: otherTenant,
    subjectId: null,
    name: 'foreign.txt',
    contentType: 'text/plain',
    bytes: new TextEncoder().encode('another tenant'),
  },
});

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_CALL_TOKEN_SECRET: SECRET }, { documents: documents.source });
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
  it("serves the document's bytes with its content type and its name", async () => {
    const callId = randomUUID();
    const response = await read(platform.internalUrl, callId, 'doc-1', `Bearer ${await tokenFor(callId)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(decodeURIComponent(response.headers.get('x-document-name') ?? '')).toBe(
      'Relevé d’identité 2024.pdf',
    );
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(
      new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]),
    );
    expect(documents.reads.at(-1)).toEqual([tenantId, 'subject-1', 'doc-1']);
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
    const before = documents.reads.length;
    for (const [name, authorization] of cases) {
      const response = await read(platform.internalUrl, callId, 'doc-1', authorization);
      expect(response.status, name).toBe(401);
      const body = await response.json();
      expect(body.error.code, name).toBe('unauthorized');
      expect(body.error.requestId, name).toBe(response.headers.get('x-request-id'));
    }
    expect(documents.reads.length).toBe(before);
  });

  it("answers 404 not_found for an absent document, another subject's and another tenant's", async () => {
    const callId = randomUUID();
    const authorization = `Bearer ${await tokenFor(callId)}`;
    for (const id of ['doc-9', 'doc-2', 'doc-3', 'bad.id', 'a b']) {
      const response = await read(platform.internalUrl, callId, id, authorization);
      expect(response.status, id).toBe(404);
      expect((await response.json()).error.code, id).toBe('not_found');
    }
    // A call without a subject reads any of its tenant's documents.
    const callWithoutSubject = randomUUID();
    const response = await read(
      platform.internalUrl,
      callWithoutSubject,
      'doc-2',
      `Bearer ${await tokenFor(callWithoutSubject, null)}`,
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('another subject');
  });

  it('is not on the public listener', async () => {
    const callId = randomUUID();
    const before = documents.reads.length;
    const response = await read(platform.url, callId, 'doc-1', `Bearer ${await tokenFor(callId)}`);
    expect(response.status).toBe(404);
    expect(documents.reads.length).toBe(before);
  });
});

describe('deployments without a document source or a call-token secret', () => {
  it('answers 404 for every document without a source, and has no route without the secret', async () => {
    const withoutSource = await startTestPlatform({ APP_CALL_TOKEN_SECRET: SECRET });
    const withoutSecret = await startTestPlatform({}, { documents: documents.source });
    try {
      const callId = randomUUID();
      const authorization = `Bearer ${await tokenFor(callId)}`;
      const none = await read(withoutSource.internalUrl, callId, 'doc-1', authorization);
      expect(none.status).toBe(404);
      expect((await none.json()).error.code).toBe('not_found');
      // Without the secret no token can be checked: the route is not there at all.
      const before = documents.reads.length;
      const absent = await read(withoutSecret.internalUrl, callId, 'doc-1', authorization);
      expect(absent.status).toBe(404);
      expect((await absent.json()).error.message).toMatch(/^no route GET/);
      expect(documents.reads.length).toBe(before);
    } finally {
      await withoutSource.close();
      await withoutSecret.close();
    }
  });
});
