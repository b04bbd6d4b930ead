// Documents over S3-compatible storage (an S3 double on loopback standing for the outside world): the
// upload puts the bytes at <STORAGE_DOCUMENTS_PREFIX><tenantId>/<id> in the modules' bucket, with their
// type and SHA-256; the check, the content route and app calls read them back from there.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallToken } from '../../src/auth/call-token.ts';
import { type S3Double, startS3Double } from '../storage/s3-double.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { checked, documentsPath, PDF, uploaded } from './support.ts';

const BUCKET = 'platform-objects';
const SECRET = 'documents-s3-call-token-secret-0123';

let double: S3Double;
let platform: TestPlatform;
beforeAll(async () => {
  double = await startS3Double([BUCKET]);
  platform = await startTestPlatform({
    STORAGE_ENDPOINT: double.endpoint,
    STORAGE_BUCKET: BUCKET,
    STORAGE_ACCESS_KEY_ID: 'AKIDDOCUMENTS',
    STORAGE_SECRET_ACCESS_KEY: 'documents-test-secret',
    STORAGE_DOCUMENTS_PREFIX: '/kyc/documents/',
    APP_CALL_TOKEN_SECRET: SECRET,
  });
});
afterAll(async () => {
  await platform?.close();
  await double?.close();
});

describe('documents in an S3-compatible bucket', () => {
  it('are stored under the documents prefix, checked, and served from the bucket', async () => {
    const tenantId = await platform.tenantId();
    const document = await uploaded(platform, {
      subjectId: 'applicant-s3',
      name: 'passport.pdf',
      contentType: 'application/pdf',
      bytes: PDF,
    });
    const key = `kyc/documents/${tenantId}/${document.id}`;
    const stored = double.buckets.get(BUCKET)?.get(key);
    expect(stored?.bytes).toEqual(Buffer.from(PDF));
    expect(stored?.contentType).toBe('application/pdf');
    expect(stored?.checksumSha256).toBe(createHash('sha256').update(PDF).digest('base64'));
    const put = double.requests.find((r) => r.method === 'PUT' && r.key === key);
    expect(put?.accessKeyId).toBe('AKIDDOCUMENTS');
    // Nothing under DATA_DIR: the bucket holds the documents.
    await expect(fs.stat(path.join(platform.config.dataDir, 'documents'))).rejects.toMatchObject({
      code: 'ENOENT',
    });

    expect((await checked(platform, document)).status).toBe('clean');
    const reads = double.requests.length;
    const content = await platform.fetch(documentsPath('applicant-s3', `/${document.id}/content`));
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(PDF);
    const callId = randomUUID();
    const token = await signCallToken(SECRET, { tenantId, callId, subjectId: 'applicant-s3' });
    const read = await fetch(
      `${platform.internalUrl}/internal/app-calls/${callId}/documents/${document.id}`,
      {
        headers: { authorization: `Bearer ${token}` },
      },
    );
    expect(read.status).toBe(200);
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(PDF);
    expect(double.requests.slice(reads).map((r) => [r.method, r.key])).toEqual([
      ['GET', key],
      ['GET', key],
    ]);
  });

  it('answers 500 rather than serve bytes the bucket changed since the upload', async () => {
    const tenantId = await platform.tenantId();
    const document = await checked(
      platform,
      await uploaded(platform, {
        subjectId: 'applicant-s3',
        name: 'changed.pdf',
        contentType: 'application/pdf',
        bytes: PDF,
      }),
    );
    const objects = double.buckets.get(BUCKET);
    const key = `kyc/documents/${tenantId}/${document.id}`;
    const stored = objects?.get(key);
    if (!objects || !stored) throw new Error('not stored');
    objects.set(key, { ...stored, bytes: Buffer.from('%PDF-1.7 substituted') });
    const response = await platform.fetch(documentsPath('applicant-s3', `/${document.id}/content`));
    expect(response.status).toBe(500);
    expect((await response.json()).error.code).toBe('internal');
  });
});
