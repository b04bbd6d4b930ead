// Where a vendor webhook's external id is read (docs/callbacks.md "Processing order", step 2), before
// any module code runs: ?externalId=, else the source the running version declares
// (handles.webhookExternalId) or the one the install's config holds at
// handles.webhookExternalIdFromConfig; text of 1 to 200 characters, or an integer read as its decimal
// text. Pure: the api's webhook route and the author's conformance check
// both read it here.
import type { Manifest, WebhookExternalIdSource } from './manifest-types.ts';
import { pointerTokens } from './names.ts';

/** A webhook as received: lower- or mixed-case header names, the raw body. */
export interface ReceivedWebhook {
  headers: Record<string, string | string[] | undefined>;
  query?: Record<string, string | string[] | undefined>;
  body: string | Uint8Array;
}

/** The value at a JSON Pointer of a parsed document, or undefined. */
function valueAtPointer(document: unknown, pointer: string): unknown {
  let current = document;
  for (const token of pointerTokens(pointer)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, token)) return undefined;
    current = (current as Record<string, unknown>)[token];
  }
  return current;
}

/** The external id's own rule: text of 1 to 200 characters, or an integer as its decimal text. */
export function externalIdText(value: unknown): string | null {
  if (typeof value === 'string' && value.length >= 1 && value.length <= 200) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return null;
}

/** Where the version (or, when it says so, the install's config) says the external id is. */
export function externalIdSource(
  manifest: Pick<Manifest, 'handles'>,
  config: Record<string, unknown>,
): WebhookExternalIdSource | null {
  if (manifest.handles.webhookExternalId) return manifest.handles.webhookExternalId;
  const pointer = manifest.handles.webhookExternalIdFromConfig;
  const source = pointer ? valueAtPointer(config, pointer) : undefined;
  if (source === null || typeof source !== 'object') return null;
  const s = source as Record<string, unknown>;
  for (const key of ['json', 'header', 'query'] as const) {
    if (typeof s[key] === 'string') return { [key]: s[key] } as WebhookExternalIdSource;
  }
  return null;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The external id the session is looked up by; null: 400 missing_external_id. */
export function webhookExternalId(
  manifest: Pick<Manifest, 'handles'>,
  config: Record<string, unknown>,
  request: ReceivedWebhook,
): string | null {
  const query = request.query ?? {};
  const fromQuery = first(query.externalId);
  if (fromQuery !== undefined) return externalIdText(fromQuery);
  const source = externalIdSource(manifest, config);
  if (!source) return null;
  if ('query' in source) return externalIdText(first(query[source.query]));
  if ('header' in source) {
    const name = source.header.toLowerCase();
    const header = Object.entries(request.headers).find(([key]) => key.toLowerCase() === name);
    return externalIdText(first(header?.[1]));
  }
  try {
    const text = typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
    return externalIdText(valueAtPointer(JSON.parse(text) as unknown, source.json));
  } catch {
    return null;
  }
}
