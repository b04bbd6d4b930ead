// Conformance samples: calls of an app's actions the check makes, and for asynchronous actions the
// vendor webhook that completes the session, as a function of the external id or as data.
import { type Manifest, webhookExternalId as platformExternalId } from '../../../src/module/index.ts';
import { type SignatureScheme, signedWebhook, type WebhookRequest } from './webhooks.ts';

/**
 * A webhook written as data (for conformance.json): every `{{externalId}}` in the body (text, or the
 * string values of a JSON body), header values and query values becomes the pending external id;
 * then, with `sign`, the body is signed like signedWebhook does.
 */
export interface WebhookTemplate {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body: string | Record<string, unknown> | unknown[];
  sign?: {
    /** The signing secret as text, or... */
    secret?: string;
    /** ...the name of a secret in the check's secrets. */
    secretName?: string;
    scheme?: SignatureScheme;
    header?: string;
    prefix?: string;
    timestampHeader?: string;
  };
}

export type SampleWebhook =
  | ((externalId: string) => WebhookRequest | Promise<WebhookRequest>)
  | WebhookTemplate;

export interface Sample {
  /** Names the sample in the report; default `<action> sample <n>`. */
  name?: string;
  action: string;
  input: unknown;
  /** Asynchronous actions: the vendor webhook completing the session of the external id answered. */
  webhook?: SampleWebhook;
}

const PLACEHOLDER = /\{\{externalId\}\}/g;

function fill(value: unknown, externalId: string): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER, externalId);
  if (Array.isArray(value)) return value.map((item) => fill(item, externalId));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, externalId)]));
  }
  return value;
}

/** The webhook request a sample gives for an external id. */
export async function sampleWebhookRequest(
  webhook: SampleWebhook,
  externalId: string,
  secrets: Record<string, string>,
): Promise<WebhookRequest> {
  if (typeof webhook === 'function') return webhook(externalId);
  const body = fill(webhook.body, externalId) as WebhookTemplate['body'];
  const headers = fill(webhook.headers ?? {}, externalId) as Record<string, string>;
  const query = fill(webhook.query ?? {}, externalId) as Record<string, string>;
  const method = webhook.method ?? 'POST';
  if (!webhook.sign) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return { method, headers: { 'content-type': 'application/json', ...headers }, query, body: text };
  }
  const { secret, secretName, ...signing } = webhook.sign;
  const key = secret ?? (secretName !== undefined ? secrets[secretName] : undefined);
  if (key === undefined) {
    throw new Error(
      secretName !== undefined
        ? `the webhook is signed with secret ${secretName}, which the check was not given`
        : 'webhook.sign needs secret or secretName',
    );
  }
  return signedWebhook({ ...signing, secret: key, body, method, headers, query });
}

/**
 * The external id the api would look the session up by, before any module code runs (the platform's own
 * rule); null: the api would answer 400 missing_external_id.
 */
export const webhookExternalId = (
  manifest: Manifest,
  config: Record<string, unknown>,
  request: WebhookRequest,
): string | null => platformExternalId(manifest, config, request);
