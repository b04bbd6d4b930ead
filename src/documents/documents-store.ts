// Subjects' documents, rows and bytes (docs/documents.md): uploads, the tenant's reads, and the reads of
// app calls (the internal listener's DocumentSource). Every query is scoped by tenant: another tenant's
// document is as absent as one that never was.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database, Queryable } from '../db/pool.ts';
import { type Page, pagedList } from '../http/paging.ts';
import { sha256Hex } from '../module/index.ts';
import type { ObjectStore } from '../storage/index.ts';
import { isUuid } from '../uuid.ts';
import type { DocumentStatus, RejectionReason } from './check-rules.ts';
import { subjectDocuments } from './tables.ts';

export type DocumentRow = typeof subjectDocuments.$inferSelect;

/** One readable document: what document_read hands the module. */
export interface CallDocument {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/**
 * Where a call's documents come from (the documents area of the backend). `read` answers null for a
 * document that is absent, not the tenant's, not clean (only clean documents are readable), or, for a
 * call with a subject, another subject's: the caller cannot tell these apart (each reads as nonexistent).
 */
export interface DocumentSource {
  read(tenantId: string, subjectId: string | null, documentId: string): Promise<CallDocument | null>;
}

/** A document as the routes answer it. */
export interface DocumentView {
  id: string;
  subjectId: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  status: DocumentStatus;
  reason: RejectionReason | null;
  createdAt: string;
  checkedAt: string | null;
  createdBy: string;
}

export const viewOf = (row: DocumentRow): DocumentView => ({
  id: row.id,
  subjectId: row.subjectId,
  name: row.name,
  contentType: row.contentType,
  size: row.size,
  sha256: row.sha256,
  status: row.status,
  reason: row.reason ?? null,
  createdAt: row.createdAt.toISOString(),
  checkedAt: row.checkedAt?.toISOString() ?? null,
  createdBy: row.createdBy,
});

/** Where a document's bytes are kept: one object per document, under its tenant. */
export const objectKeyOf = (row: Pick<DocumentRow, 'tenantId' | 'id'>) => `${row.tenantId}/${row.id}`;

export interface NewDocument {
  tenantId: string;
  subjectId: string;
  name: string;
  /** The accepted type's essence (check-rules.ts acceptedType). */
  contentType: string;
  bytes: Uint8Array;
  createdBy: string;
}

/**
 * Stores the bytes, then the row (pending): a row never points at bytes that were not written. A failed
 * insert leaves an object no row names, which nothing reads.
 */
export async function storeDocument(
  deps: { database: Database; objects: ObjectStore },
  document: NewDocument,
): Promise<DocumentView> {
  const id = randomUUID();
  const key = objectKeyOf({ tenantId: document.tenantId, id });
  await deps.objects.put(key, document.bytes, { contentType: document.contentType });
  const [row] = await deps.database.db
    .insert(subjectDocuments)
    .values({
      id,
      tenantId: document.tenantId,
      subjectId: document.subjectId,
      name: document.name,
      contentType: document.contentType,
      size: document.bytes.byteLength,
      sha256: sha256Hex(document.bytes),
      createdBy: document.createdBy,
    })
    .returning();
  if (!row) throw new Error('the document row was not written');
  return viewOf(row);
}

/** One subject's documents, newest first, optionally of one status. */
export async function listDocuments(
  db: Queryable,
  scope: { tenantId: string; subjectId: string },
  query: { limit: number; offset: number; status?: DocumentStatus },
): Promise<Page<DocumentView>> {
  const conditions: SQL[] = [
    eq(subjectDocuments.tenantId, scope.tenantId),
    eq(subjectDocuments.subjectId, scope.subjectId),
  ];
  if (query.status) conditions.push(eq(subjectDocuments.status, query.status));
  return pagedList(
    db,
    {
      from: subjectDocuments,
      where: and(...conditions),
      orderBy: [desc(subjectDocuments.createdAt), desc(subjectDocuments.id)],
      limit: query.limit,
      offset: query.offset,
    },
    viewOf,
  );
}

/** The row of a subject's document, or null (absent, another subject's, another tenant's). */
export async function findDocument(
  db: Queryable,
  scope: { tenantId: string; subjectId: string | null },
  id: string,
): Promise<DocumentRow | null> {
  // Ids are UUIDs; anything else names no document (and would not reach the uuid columns).
  if (!isUuid(id) || !isUuid(scope.tenantId)) return null;
  const conditions = [eq(subjectDocuments.tenantId, scope.tenantId), eq(subjectDocuments.id, id)];
  if (scope.subjectId !== null) conditions.push(eq(subjectDocuments.subjectId, scope.subjectId));
  const [row] = await db
    .select()
    .from(subjectDocuments)
    .where(and(...conditions))
    .limit(1);
  return row ?? null;
}

/** Why stored bytes cannot be served: gone, or not the bytes uploaded (damaged or replaced in the store). */
export class DocumentBytesLost extends Error {}

/**
 * The bytes behind a row, checked against the hash taken at upload; throws DocumentBytesLost when they are
 * gone or differ, and whatever the store throws when it fails.
 */
export async function bytesOf(objects: ObjectStore, row: DocumentRow): Promise<Uint8Array> {
  const key = objectKeyOf(row);
  const bytes = await objects.get(key);
  if (!bytes) throw new DocumentBytesLost(`document storage: ${objects.where(key)} is missing`);
  if (sha256Hex(bytes) !== row.sha256)
    throw new DocumentBytesLost(`document storage: ${objects.where(key)} does not match its hash`);
  return bytes;
}

/**
 * What app calls read (the internal listener's documents route): a clean document of the call's
 * tenant, and of its subject when the call has one; anything else reads as nonexistent.
 */
export function documentSourceOf(deps: { database: Database; objects: ObjectStore }): DocumentSource {
  return {
    async read(tenantId, subjectId, documentId): Promise<CallDocument | null> {
      const row = await findDocument(deps.database.db, { tenantId, subjectId }, documentId);
      if (!row || row.status !== 'clean') return null;
      return { name: row.name, contentType: row.contentType, bytes: await bytesOf(deps.objects, row) };
    },
  };
}
