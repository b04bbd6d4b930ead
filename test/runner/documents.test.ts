// document_read end to end: a module run by the real runner reads a document of the platform's document
// store through the api's real internal route with its call's document token (which binds tenant, call
// and the call's subject).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallToken } from '../../src/auth/call-token.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { servedReads, servedReadsOnce, storedDocument } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

const SECRET = 'runner-documents-call-token-secret-01';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
let tenantId: string;
/** subject-1's document, and subject-2's. */
let own: string;
let others: string;

let platform: TestPlatform;
let runner: TestRunner;
let echo: string;

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN, APP_CALL_TOKEN_SECRET: SECRET });
  tenantId = await platform.tenantId();
  own = await storedDocument(platform, {
    tenantId,
    subjectId: 'subject-1',
    name: 'passport scan.png',
    contentType: 'image/png',
    bytes: PNG,
  });
  others = await storedDocument(platform, {
    tenantId,
    subjectId: 'subject-2',
    name: 'other.txt',
    contentType: 'text/plain',
    bytes: new TextEncoder().encode('not yours'),
  });
  runner = await startTestRunner(platform);
  echo = await runner.store(await buildFixture('echo'));
}, 120_000);
afterAll(async () => {
  await runner?.close();
  await platform?.close();
});

/** Invokes the echo module relaying document_read, with a token for this call, for another call, or none. */
async function readDocuments(
  id: string,
  options: { repeat?: number; token?: 'none' | 'own' | 'other call' } = {},
) {
  const callId = randomUUID();
  const token =
    options.token === 'none'
      ? null
      : await signCallToken(SECRET, {
          tenantId,
          callId: options.token === 'other call' ? randomUUID() : callId,
          subjectId: 'subject-1',
        });
  const hostCall = {
    fn: 'document_read',
    ...(options.repeat ? { repeat: options.repeat } : {}),
    request: { id },
  };
  // The api's read lines so far: this call's are those logged after them (the file's calls run one by one).
  const readsBefore = servedReads(platform).length;
  const response = await runner.post('/v1/invoke', {
    module: { sha256: echo },
    call: { id: callId, tenantId },
    action: 'echo',
    config: {},
    input: { hostCall },
    documents: token ? { token } : null,
    timeoutMs: 10_000,
  });
  expect(response.status).toBe(200);
  return { ...(await response.json()), callId, readsBefore };
}

describe('document_read through the internal route', () => {
  it("reads the call's document with its name, content type and bytes", async () => {
    const body = await readDocuments(own);
    expect(body.answer.output.answer).toEqual({
      id: own,
      name: 'passport scan.png',
      contentType: 'image/png',
      bodyBase64: Buffer.from(PNG).toString('base64'),
    });
    expect(body.usage.documentReads).toBe(1);
    expect(await servedReadsOnce(platform, 1, body.readsBefore)).toEqual([200]);
  });

  it("answers another subject's document as nonexistent", async () => {
    const body = await readDocuments(others);
    expect(body.answer.output.answer).toEqual({ error: expect.any(String), notFound: true });
    expect(await servedReadsOnce(platform, 1, body.readsBefore)).toEqual([404]);
  });

  it('refuses the 11th read of a call', async () => {
    const body = await readDocuments(own, { repeat: 11 });
    const answers = body.answer.output.answers as Array<Record<string, unknown>>;
    expect(answers).toHaveLength(11);
    for (const answer of answers.slice(0, 10))
      expect(answer).toMatchObject({ id: own, name: 'passport scan.png' });
    expect(answers[10]).toEqual({ error: expect.stringContaining('at most 10'), refused: true });
    expect(body.usage.documentReads).toBe(10);
    // The runner answered after its last read: ten reads reached the api, and the eleventh never left.
    expect(await servedReadsOnce(platform, 10, body.readsBefore)).toEqual(Array(10).fill(200));
  });

  it('refuses a call without a token, and a token minted for another call reads nothing', async () => {
    const without = await readDocuments(own, { token: 'none' });
    expect(without.answer.output.answer).toEqual({ error: expect.any(String), refused: true });
    expect(without.usage.documentReads).toBe(0);
    // Refused in the runner: nothing was asked of the api.
    expect(servedReads(platform, without.readsBefore)).toEqual([]);

    const other = await readDocuments(own, { token: 'other call' });
    expect(other.answer.output.answer).toEqual({ error: expect.stringContaining('401') });
    expect(await servedReadsOnce(platform, 1, other.readsBefore)).toEqual([401]);
  });
});
