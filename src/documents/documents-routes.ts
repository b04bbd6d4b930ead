// The documents routes (docs/documents.md): a subject's documents, uploaded as raw bytes, listed, read.
// Thin: parse, authorize, call the store, shape the answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../db/pool.ts';
import { principalOf } from '../http/auth.ts';
import { ApiError, conflict, notFound } from '../http/errors.ts';
import { errors } from '../http/responses.ts';
import type { ObjectStore } from '../storage/index.ts';
import type { DocumentChecks } from './check.ts';
import { ACCEPTED_CONTENT_TYPES, acceptedType } from './check-rules.ts';
import { bytesOf, findDocument, listDocuments, storeDocument, viewOf } from './documents-store.ts';
import {
  Document,
  DocumentContent,
  DocumentList,
  DocumentParams,
  ListQuery,
  MAX_DOCUMENT_BYTES,
  SubjectParams,
  UploadQuery,
} from './schemas.ts';

export interface DocumentRoutesDeps {
  database: Database;
  /** Null when the deployment has no object storage (MODULE_STORAGE=off): every route answers 503. */
  objects: ObjectStore | null;
  /** Checks each upload once it is answered; absent, documents wait for another process's sweep. */
  checks?: DocumentChecks;
}

const ACCEPTS = ACCEPTED_CONTENT_TYPES.join(', ');

/** `attachment; filename*=UTF-8''…`: any name survives the header, and a browser saves rather than renders. */
function attachment(name: string): string {
  const encoded = encodeURIComponent(name.replace(/[\uD800-\uDFFF]/g, '\uFFFD')).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename*=UTF-8''${encoded}`;
}

export function subjectDocumentRoutes(deps: DocumentRoutesDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const db = deps.database.db;
    const storage = () => {
      if (!deps.objects)
        throw new ApiError('documents_unavailable', 'this deployment has no object storage for documents');
      return deps.objects;
    };

    // The body is the document as it is, of one of the accepted types (Fastify answers 415 to others):
    // this plugin's own parsers, so JSON bodies are not parsed here, and nothing outside it changes.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      [...ACCEPTED_CONTENT_TYPES],
      { parseAs: 'buffer', bodyLimit: MAX_DOCUMENT_BYTES },
      (_request, body, done) => done(null, body),
    );

    app.post(
      '/subjects/:subjectId/documents',
      {
        bodyLimit: MAX_DOCUMENT_BYTES,
        // `accepts` names the body's types in the description and in the 415 answer.
        config: { permission: 'documents:write', accepts: ACCEPTS },
        schema: {
          tags: ['documents'],
          operationId: 'uploadDocument',
          summary: `Upload a document of a subject: the raw bytes as the body (at most 8 MiB), its type as Content-Type; answered pending, then checked`,
          params: SubjectParams,
          querystring: UploadQuery,
          response: { 201: Document, ...errors('documents_unavailable') },
        },
      },
      async (request, reply) => {
        const objects = storage();
        const contentType = acceptedType(request.headers['content-type'] ?? '');
        if (!Buffer.isBuffer(request.body) || contentType === null)
          throw new ApiError('unsupported_media_type', `send the document as one of ${ACCEPTS}`);
        const principal = principalOf(request);
        const document = await storeDocument(
          { database: deps.database, objects },
          {
            tenantId: principal.tenantId,
            subjectId: request.params.subjectId,
            name: request.query.name,
            contentType,
            bytes: new Uint8Array(request.body.buffer, request.body.byteOffset, request.body.byteLength),
            createdBy: principal.subject,
          },
        );
        deps.checks?.schedule(document.id);
        return reply.status(201).send(document);
      },
    );

    app.get(
      '/subjects/:subjectId/documents',
      {
        config: { permission: 'documents:read' },
        schema: {
          tags: ['documents'],
          operationId: 'listDocuments',
          summary: 'A subject’s documents, newest first, optionally of one status',
          params: SubjectParams,
          querystring: ListQuery,
          response: { 200: DocumentList, ...errors('documents_unavailable') },
        },
      },
      async (request) => {
        storage();
        const { tenantId } = principalOf(request);
        return listDocuments(db, { tenantId, subjectId: request.params.subjectId }, request.query);
      },
    );

    app.get(
      '/subjects/:subjectId/documents/:id',
      {
        config: { permission: 'documents:read' },
        schema: {
          tags: ['documents'],
          operationId: 'getDocument',
          summary: 'One document of a subject: its name, type, size, hash and the check’s status',
          params: DocumentParams,
          response: { 200: Document, ...errors('not_found', 'documents_unavailable') },
        },
      },
      async (request) => {
        storage();
        const { tenantId } = principalOf(request);
        const row = await findDocument(
          db,
          { tenantId, subjectId: request.params.subjectId },
          request.params.id,
        );
        if (!row) throw notFound('no such document');
        return viewOf(row);
      },
    );

    app.get(
      '/subjects/:subjectId/documents/:id/content',
      {
        config: { permission: 'documents:read' },
        schema: {
          tags: ['documents'],
          operationId: 'getDocumentContent',
          summary:
            'A clean document’s bytes, with its type and its name as an attachment; 409 while pending or once rejected',
          params: DocumentParams,
          response: {
            200: DocumentContent,
            ...errors('not_found', 'conflict', 'documents_unavailable'),
          },
        },
      },
      async (request, reply) => {
        const objects = storage();
        const { tenantId } = principalOf(request);
        const row = await findDocument(
          db,
          { tenantId, subjectId: request.params.subjectId },
          request.params.id,
        );
        if (!row) throw notFound('no such document');
        // Only what the check passed goes out: a pending document is unchecked, a rejected one may be harmful.
        if (row.status !== 'clean')
          throw conflict(`the document is ${row.status}: only clean documents are served`, {
            status: row.status,
          });
        const bytes = await bytesOf(objects, row);
        return reply
          .header('content-type', row.contentType)
          .header('content-disposition', attachment(row.name))
          .header('x-content-type-options', 'nosniff')
          .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      },
    );
  };
}
