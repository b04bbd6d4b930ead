// Running the check (src/documents/check.ts) on the real database and the real document store: the sweep
// checks documents left pending (a process that stopped before its own check), lost or replaced bytes are
// rejected as missing, and a document is moved once.
import fs from 'node:fs/promises';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkDocument, checkPendingDocuments } from '../../src/documents/check.ts';
import { storeDocument } from '../../src/documents/documents-store.ts';
import { subjectDocuments } from '../../src/documents/tables.ts';
import { createDocumentObjects, FilesystemObjects, type ObjectStore } from '../../src/storage/index.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bytesOf, PDF } from './support.ts';

let platform: TestPlatform;
let objects: ObjectStore;
let tenantId: string;
beforeAll(async () => {
  platform = await startTestPlatform();
  const store = createDocumentObjects(platform.config);
  if (!store) throw new Error('the test platform keeps documents');
  objects = store;
  tenantId = await platform.tenantId('sweep');
});
afterAll(async () => platform?.close());

const logger = pino({ level: 'silent' });
const deps = () => ({ database: platform.database, objects, logger });

/** A document stored as an upload stores it, with no check scheduled: pending until swept. */
const pending = (name: string, bytes: Uint8Array = PDF, contentType = 'application/pdf') =>
  storeDocument(
    { database: platform.database, objects },
    { tenantId, subjectId: 'swept', name, contentType, bytes, createdBy: 'user:test' },
  );

const statusOf = async (id: string) => {
  const [row] = await platform.database.db.select().from(subjectDocuments).where(eq(subjectDocuments.id, id));
  return { status: row?.status, reason: row?.reason, checkedAt: row?.checkedAt };
};

const fileOf = (id: string) => path.join(platform.config.dataDir, 'documents', tenantId, id);

describe('the sweep of pending documents', () => {
  it('leaves documents younger than its grace, then checks each left pending, once', async () => {
    const good = await pending('good.pdf');
    const bad = await pending('bad.pdf', bytesOf('not a pdf'));
    // The default grace (a minute) has not passed: the upload's own check still has its chance.
    expect(await checkPendingDocuments(deps())).toBe(0);
    expect((await statusOf(good.id)).status).toBe('pending');

    expect(await checkPendingDocuments(deps(), { olderThanMs: 0 })).toBeGreaterThanOrEqual(2);
    expect(await statusOf(good.id)).toMatchObject({
      status: 'clean',
      reason: null,
      checkedAt: expect.any(Date),
    });
    expect(await statusOf(bad.id)).toMatchObject({ status: 'rejected', reason: 'type_mismatch' });
    // Checked already: neither a second pass nor a late check moves it again.
    expect(await checkDocument(deps(), good.id)).toBeNull();
    expect(await checkPendingDocuments(deps(), { olderThanMs: 0 })).toBe(0);
  });

  it('rejects as missing a document whose bytes are gone or were replaced', async () => {
    const gone = await pending('gone.pdf');
    const replaced = await pending('replaced.pdf');
    await fs.rm(fileOf(gone.id));
    await fs.writeFile(fileOf(replaced.id), bytesOf('%PDF-1.7 other bytes'));
    expect(await checkDocument(deps(), gone.id)).toEqual({ status: 'rejected', reason: 'missing' });
    expect(await checkDocument(deps(), replaced.id)).toEqual({ status: 'rejected', reason: 'missing' });
    expect(await statusOf(gone.id)).toMatchObject({ status: 'rejected', reason: 'missing' });
  });

  it('leaves a document pending when the store fails, for the next pass', async () => {
    const document = await pending('later.pdf');
    // A real store that fails (its folder is under a file: ENOTDIR), not one that lacks the object.
    const failingDeps = {
      ...deps(),
      objects: new FilesystemObjects(path.join(fileOf(document.id), 'store')),
    };
    await expect(checkDocument(failingDeps, document.id)).rejects.toThrow(/ENOTDIR/);
    expect(await checkPendingDocuments(failingDeps, { olderThanMs: 0 })).toBe(0);
    expect((await statusOf(document.id)).status).toBe('pending');
    expect(await checkPendingDocuments(deps(), { olderThanMs: 0 })).toBe(1);
    expect((await statusOf(document.id)).status).toBe('clean');
  });
});
