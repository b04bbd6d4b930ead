// service.document.processed.count on the real database and document store: each document the check
// moves (clean or rejected) counts once; a second check of the same document moves and counts nothing.
import { metrics } from '@opentelemetry/api';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkDocument } from '../../src/documents/check.ts';
import { storeDocument } from '../../src/documents/documents-store.ts';
import { createDocumentObjects, type ObjectStore } from '../../src/storage/index.ts';
import { bytesOf, PDF } from '../documents/support.ts';
import { readGlobalMetrics, type TestMetricReader } from '../support/metric-reader.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let objects: ObjectStore;
let tenantId: string;
let reader: TestMetricReader;
beforeAll(async () => {
  reader = readGlobalMetrics();
  platform = await startTestPlatform();
  const store = createDocumentObjects(platform.config);
  if (!store) throw new Error('the test platform keeps documents');
  objects = store;
  tenantId = await platform.tenantId('docs');
}, 120_000);
afterAll(async () => {
  await platform?.close();
  metrics.disable();
});

const store = (name: string, bytes: Uint8Array) =>
  storeDocument(
    { database: platform.database, objects },
    { tenantId, subjectId: 'subject-1', name, contentType: 'application/pdf', bytes, createdBy: 'user:test' },
  );

it('counts each document its check moved, once', async () => {
  const deps = { database: platform.database, objects, logger: pino({ level: 'silent' }) };
  const good = await store('good.pdf', PDF);
  const bad = await store('bad.pdf', bytesOf('not a pdf'));
  expect(await reader.value('service.document.processed.count')).toBe(0);
  expect(await checkDocument(deps, good.id)).toEqual({ status: 'clean' });
  expect(await checkDocument(deps, bad.id)).toMatchObject({ status: 'rejected' });
  expect(await checkDocument(deps, good.id)).toBeNull();
  expect(await reader.value('service.document.processed.count')).toBe(2);
});
