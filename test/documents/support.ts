// Helpers of the documents tests (not a test file itself): uploads through the real route, and waiting
// for the check's verdict by reading the document until it leaves pending (no sleeps).
import { expect } from 'vitest';
import type { TestPlatform } from '../support/platform.ts';

export interface DocumentAnswer {
  id: string;
  subjectId: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  status: 'pending' | 'clean' | 'rejected';
  reason: string | null;
  createdAt: string;
  checkedAt: string | null;
  createdBy: string;
}

export const bytesOf = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((part) => (typeof part === 'string' ? [...Buffer.from(part)] : part)));

/** A small PDF's first bytes (its binary comment line included, as writers put it). */
export const PDF = bytesOf('%PDF-1.7\n%', [0xe2, 0xe3, 0xcf, 0xd3], '\n1 0 obj << >> endobj\n%%EOF\n');
export const PNG = bytesOf([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13], 'IHDR');

export const documentsPath = (subjectId: string, rest = '') =>
  `/subjects/${encodeURIComponent(subjectId)}/documents${rest}`;

/** POST /subjects/:subjectId/documents?name=… with the bytes and their type. */
export function upload(
  platform: TestPlatform,
  options: {
    subjectId: string;
    name: string;
    contentType?: string;
    bytes: Uint8Array;
    token?: string | null;
  },
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  return platform.fetch(documentsPath(options.subjectId, `?name=${encodeURIComponent(options.name)}`), {
    method: 'POST',
    headers,
    body: Buffer.from(options.bytes),
    ...(options.token !== undefined ? { token: options.token } : {}),
  });
}

/** Uploads and answers the document as the upload answered it (201, pending). */
export async function uploaded(
  platform: TestPlatform,
  options: Parameters<typeof upload>[1],
): Promise<DocumentAnswer> {
  const response = await upload(platform, options);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as DocumentAnswer;
}

/** Reads the document until the check has decided (bounded: a check that never comes fails the test). */
export async function checked(
  platform: TestPlatform,
  document: Pick<DocumentAnswer, 'id' | 'subjectId'>,
  token?: string,
): Promise<DocumentAnswer> {
  const giveUpAt = Date.now() + 10_000;
  while (Date.now() < giveUpAt) {
    const response = await platform.fetch(documentsPath(document.subjectId, `/${document.id}`), {
      ...(token ? { token } : {}),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as DocumentAnswer;
    if (answer.status !== 'pending') return answer;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`document ${document.id} was still pending after 10 s`);
}
