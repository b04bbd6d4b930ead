// Routes of the internal listener, for runners only: module bytes under the runner bearer, and the
// documents of an app call under that call's document token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { verifyCallToken } from '../auth/call-token.ts';
import { bearerOf, secretMatcher } from '../auth/shared-secret.ts';
import type { DocumentSource } from '../documents/index.ts';
import { ApiError, notFound, unauthorized } from '../http/errors.ts';
import { errors } from '../http/responses.ts';
import type { ModuleStorage } from '../storage/module-storage.ts';

export interface InternalDeps {
  runnerToken: string;
  modules: ModuleStorage;
  /** Whether a stored module may be served (published or still running, not blocked; the catalogue decides). */
  servable?: (sha256: string) => Promise<boolean>;
}

const NOT_SERVED = 'no published module of that hash, or blocked';

export function internalRoutes(deps: InternalDeps): FastifyPluginAsyncTypebox {
  const isRunnerToken = secretMatcher(deps.runnerToken);
  return async (app) => {
    app.get(
      '/internal/app-modules/:sha256',
      {
        config: { public: true },
        schema: {
          params: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }),
          response: errors('not_found'),
        },
      },
      async (request, reply) => {
        const token = bearerOf(request.headers.authorization);
        if (!token || !isRunnerToken(token)) {
          throw new ApiError('unauthorized', 'the runner bearer token is missing or wrong');
        }
        const { sha256 } = request.params;
        if (deps.servable && !(await deps.servable(sha256))) throw notFound(NOT_SERVED);
        const bytes = await deps.modules.get(sha256);
        if (!bytes) throw notFound(NOT_SERVED);
        return reply.header('content-type', 'application/wasm').send(Buffer.from(bytes));
      },
    );
  };
}

export interface DocumentRouteDeps {
  /** APP_CALL_TOKEN_SECRET. */
  callTokenSecret: string;
  /** Without one, every document answers 404. */
  documents?: DocumentSource;
}

const DOCUMENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** What Node will send as a header value; anything else in a content type falls back to octet-stream. */
const CONTENT_TYPE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;

function headerName(name: string): string {
  try {
    return encodeURIComponent(name);
  } catch {
    // A name holding a lone surrogate cannot be UTF-8.
    return encodeURIComponent(name.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  }
}

/**
 * GET /internal/app-calls/:callId/documents/:id under the call's document token (Authorization: Bearer).
 * The bytes go out with the document's content type and its name in x-document-name, percent-encoded
 * UTF-8 (encodeURIComponent), so that any name survives a header.
 */
export function documentRoutes(deps: DocumentRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/internal/app-calls/:callId/documents/:id',
      {
        config: { public: true },
        schema: {
          // Checked in the handler, after the token: a caller without one learns nothing from a 400.
          params: Type.Object({ callId: Type.String(), id: Type.String() }),
          response: errors('not_found'),
        },
      },
      async (request, reply) => {
        const token = bearerOf(request.headers.authorization);
        if (!token) throw unauthorized('a call token is required');
        const verified = await verifyCallToken(deps.callTokenSecret, token, {
          callId: request.params.callId,
        });
        if (!verified.ok) throw unauthorized('the call token is invalid, expired or for another call');
        const { id } = request.params;
        if (!DOCUMENT_ID.test(id) || !deps.documents) throw notFound('no such document');
        const { tenantId, subjectId } = verified.claims;
        const document = await deps.documents.read(tenantId, subjectId, id);
        if (!document) throw notFound('no such document');
        return reply
          .header(
            'content-type',
            CONTENT_TYPE.test(document.contentType) ? document.contentType : 'application/octet-stream',
          )
          .header('x-document-name', headerName(document.name))
          .send(Buffer.from(document.bytes.buffer, document.bytes.byteOffset, document.bytes.byteLength));
      },
    );
  };
}
