// document_read: { id } → { id, name, contentType, bodyBase64 } | { error, notFound: true } | refusal.
// Read through the api's internal listener with the call's document token (which binds tenant, call and
// subject); 10 reads a call. Calls without a token (webhooks, hand-offs, installs not reading documents) are refused.
import type { CallState } from './call-state.ts';
import { refuse } from './refusal.ts';

export const MAX_DOCUMENT_READS = 10;
const ID = /^[A-Za-z0-9_-]{1,100}$/;

export async function documentRead(state: CallState, request: unknown, fetchImpl: typeof fetch = fetch) {
  const { id } = (request ?? {}) as { id?: unknown };
  if (!state.documents) return refuse('document_read: this call may not read documents');
  if (typeof id !== 'string' || !ID.test(id)) return refuse('document_read: id must be a document id');
  if (state.usage.documentReads >= MAX_DOCUMENT_READS)
    return refuse(`document_read: at most ${MAX_DOCUMENT_READS} reads a call`);
  state.usage.documentReads += 1;
  const url = `${state.documents.baseUrl}/internal/app-calls/${encodeURIComponent(state.callId)}/documents/${id}`;
  const remaining = Math.max(1, state.deadline - Date.now());
  try {
    const response = await fetchImpl(url, {
      headers: { authorization: `Bearer ${state.documents.token}` },
      signal: AbortSignal.any([state.signal, AbortSignal.timeout(Math.min(remaining, 30_000))]),
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return { error: `document ${id} does not exist`, notFound: true };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { error: `document ${id} could not be read (${response.status})` };
    }
    const body = Buffer.from(await response.arrayBuffer());
    return {
      id,
      name: decodeName(response.headers.get('x-document-name')),
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      bodyBase64: body.toString('base64'),
    };
  } catch {
    return { error: `document ${id} could not be read` };
  }
}

/** The api sends the name percent-encoded (UTF-8), so that any name survives a header. */
function decodeName(header: string | null): string | null {
  if (header === null) return null;
  try {
    return decodeURIComponent(header);
  } catch {
    return header;
  }
}
