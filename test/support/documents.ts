// A document source for tests: a Map standing for the documents area's store, which the api's internal
// documents route reads. A call with a subject reads only that subject's documents.
import type { CallDocument, DocumentSource } from '../../src/api/internal.ts';

export interface StoredDocument extends CallDocument {
  tenantId: string;
  subjectId: string | null;
}

export function documentMap(entries: Record<string, StoredDocument>) {
  const reads: Array<[tenantId: string, subjectId: string | null, id: string]> = [];
  const source: DocumentSource = {
    async read(tenant, subject, id) {
      reads.push([tenant, subject, id]);
      const document = entries[id];
      if (!document || document.tenantId !== tenant) return null;
      if (subject !== null && document.subjectId !== subject) return null;
      return { name: document.name, contentType: document.contentType, bytes: document.bytes };
    },
  };
  return { source, reads };
}
