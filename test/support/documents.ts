// Documents for tests that need one an app call can read: stored in the platform's own document store
// as an upload stores it, and checked by the platform's check (which must find it clean).
import pino from 'pino';
import { checkDocument } from '../../src/documents/check.ts';
import { storeDocument } from '../../src/documents/documents-store.ts';
import { createDocumentObjects } from '../../src/storage/index.ts';
import type { TestPlatform } from './platform.ts';

export interface TestDocument {
  tenantId: string;
  subjectId: string;
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** Stores and checks the document; answers its id. */
export async function storedDocument(platform: TestPlatform, document: TestDocument): Promise<string> {
  const objects = createDocumentObjects(platform.config);
  if (!objects) throw new Error('this test platform keeps no documents (MODULE_STORAGE=off)');
  try {
    const { id } = await storeDocument(
      { database: platform.database, objects },
      { ...document, createdBy: 'user:test' },
    );
    const verdict = await checkDocument(
      { database: platform.database, objects, logger: pino({ level: 'silent' }) },
      id,
    );
    if (verdict?.status !== 'clean')
      throw new Error(`document ${document.name} is not clean: ${JSON.stringify(verdict)}`);
    return id;
  } finally {
    objects.close?.();
  }
}

/**
 * The document reads the api answered (its request log lines, which name the route, never the path), by
 * status: all of them, or those logged after the first `from` (a test reads its own calls' by counting
 * the lines before them).
 */
export function servedReads(platform: TestPlatform, from = 0): number[] {
  return platform.logs
    .filter((line) => line.route === '/internal/app-calls/:callId/documents/:id')
    .slice(from)
    .map((line) => line.statusCode as number);
}

/**
 * The answers of reads the api has logged after the first `from`, once there are `count` of them: a
 * request's line is written when its answer has gone out, which may be just after the reader got it.
 * Bounded.
 */
export async function servedReadsOnce(platform: TestPlatform, count: number, from = 0) {
  const giveUpAt = Date.now() + 10_000;
  while (servedReads(platform, from).length < count && Date.now() < giveUpAt)
    await new Promise((resolve) => setImmediate(resolve));
  return servedReads(platform, from);
}
