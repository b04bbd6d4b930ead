// The documents subsystem's front door (docs/documents.md): subjects' documents, their check, and what
// app calls read of them.
export { DocumentChecks } from './check.ts';
export { ACCEPTED_CONTENT_TYPES } from './check-rules.ts';
export { subjectDocumentRoutes } from './documents-routes.ts';
export { type CallDocument, type DocumentSource, documentSourceOf } from './documents-store.ts';
export { MAX_DOCUMENT_BYTES } from './schemas.ts';
