// The api's internal document route as the document_read host function reads it
// (GET /internal/app-calls/:callId/documents/:id with the call's bearer token; the body, its
// content-type and the name percent-encoded in x-document-name), served from the loader's documents
// map. Each invoke that may read documents gets a token bound to its call id and subject; the token ends
// with the call. As in the api, a call for a subject cannot read another subject's documents.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type LocalServer, startLocalServer } from './local-server.ts';

export interface TestDocument {
  name: string;
  /** Default application/octet-stream. */
  contentType?: string;
  body: string | Uint8Array;
  /** The subject the document belongs to: a call made for another subject cannot read it (404). */
  subjectId?: string;
}

/** What Node will send as a header value; anything else falls back to octet-stream, as in the api. */
const CONTENT_TYPE = /^[\x21-\x7e][\x20-\x7e]{0,254}$/;
const ROUTE = /^\/internal\/app-calls\/([^/]+)\/documents\/([^/]+)$/;

export class DocumentRoute {
  readonly #tokens = new Map<string, { callId: string; subjectId: string | null }>();

  private constructor(
    private readonly server: LocalServer,
    private readonly documents: Record<string, TestDocument>,
  ) {}

  static async start(documents: Record<string, TestDocument>): Promise<DocumentRoute> {
    const holder: { route?: DocumentRoute } = {};
    const server = await startLocalServer((request) => {
      const route = holder.route;
      const match = ROUTE.exec(request.path);
      if (request.method !== 'GET' || !match || !route) return { status: 404 };
      return route.#serve(
        decodeURIComponent(match[1] ?? ''),
        decodeURIComponent(match[2] ?? ''),
        request.headers.authorization,
      );
    });
    holder.route = new DocumentRoute(server, documents);
    return holder.route;
  }

  /** The api internal URL the document_read host function is pointed at. */
  get url(): string {
    return this.server.url;
  }

  /** A token for one call; revoke it when the call ends. */
  issue(callId: string, subjectId: string | null): string {
    const token = randomBytes(24).toString('base64url');
    this.#tokens.set(token, { callId, subjectId });
    return token;
  }

  revoke(token: string): void {
    this.#tokens.delete(token);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  #serve(callId: string, id: string, authorization: string | undefined) {
    const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
    const grant = [...this.#tokens].find(([token]) => sameText(token, presented))?.[1];
    if (!grant || grant.callId !== callId) return { status: 401 };
    const document = Object.hasOwn(this.documents, id) ? this.documents[id] : undefined;
    const otherSubject =
      grant.subjectId !== null && document?.subjectId !== undefined && document.subjectId !== grant.subjectId;
    if (!document || otherSubject) {
      return { status: 404 };
    }
    const contentType = document.contentType ?? '';
    return {
      status: 200,
      headers: {
        'content-type': CONTENT_TYPE.test(contentType) ? contentType : 'application/octet-stream',
        // Percent-encoded UTF-8, as the api sends it, so that any name survives a header.
        'x-document-name': headerName(document.name),
      },
      body: typeof document.body === 'string' ? Buffer.from(document.body, 'utf8') : document.body,
    };
  }
}

function headerName(name: string): string {
  try {
    return encodeURIComponent(name);
  } catch {
    // A name holding a lone surrogate cannot be UTF-8.
    return encodeURIComponent(name.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
