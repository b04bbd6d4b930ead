// Where an install may read its webhooks' external id from (docs/callbacks.md "Event ids and external
// ids"). The platform finds a webhook's session by that id before the module checks the vendor's
// signature; an id read where the signature does not reach lets anyone holding one signed delivery point
// it at another pending session of the install. The platform can only judge that for http-connector (the
// platform's generic connector, whose config names its scheme beside the source), which takes the id only
// from the body or a header its scheme signs: never the query string (no scheme signs it), and a header
// only when signed — hmac signs only the body, hmac-timestamped also its timestamp header,
// standard-webhooks its webhook-id and webhook-timestamp headers, any other scheme nothing. Every other
// app may read it from the body, a header or the query, as its manifest's handles allow: what its own
// scheme signs is its business (and a signed event that names another session than the id found is
// refused, 401 webhook_rejected). Pure.
import type { Manifest } from '../module/index.ts';
import { type ConfigIssue, valueAt } from './config-pointers.ts';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The parent pointer of a JSON Pointer ("" for a top-level member). */
const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf('/'));

/**
 * The headers http-connector's scheme signs, read from the webhook settings object that holds the id
 * source (its `scheme`, and `timestampHeader` for hmac-timestamped). Lower case.
 */
function connectorSignedHeaders(settings: Record<string, unknown>): string[] {
  const scheme = settings.scheme;
  if (scheme === 'standard-webhooks') return ['webhook-id', 'webhook-timestamp'];
  if (scheme === 'hmac-timestamped') {
    const header = typeof settings.timestampHeader === 'string' ? settings.timestampHeader : 'x-timestamp';
    return [header.toLowerCase()];
  }
  return [];
}

/** Apps whose config names the signature scheme beside the id source: the headers that scheme signs. */
const SCHEMED_APPS: Readonly<Record<string, (settings: Record<string, unknown>) => string[]>> = {
  'http-connector': connectorSignedHeaders,
};

/** The config's issues with its webhook external id source: none, or one at the source's pointer. */
export function webhookSourceIssues(
  manifest: Pick<Manifest, 'name' | 'handles'>,
  config: Record<string, unknown>,
): ConfigIssue[] {
  const pointer = manifest.handles.webhookExternalIdFromConfig;
  if (!pointer) return [];
  const source = valueAt(config, pointer);
  const signedHeaders = SCHEMED_APPS[manifest.name];
  if (!isRecord(source) || !signedHeaders) return [];
  if (typeof source.query === 'string') {
    return [
      {
        path: pointer,
        message:
          'this app takes a webhook’s external id only from the body or a signed header: no signature scheme covers the query',
      },
    ];
  }
  if (typeof source.header !== 'string') return [];
  const settings = valueAt(config, parentOf(pointer));
  const signed = signedHeaders(isRecord(settings) ? settings : {});
  if (signed.includes(source.header.toLowerCase())) return [];
  return [
    {
      path: pointer,
      message:
        signed.length === 0
          ? 'this signature scheme signs no header: read the external id from the body'
          : `this signature scheme signs only the headers ${signed.join(', ')}: read the external id from one of them or from the body`,
    },
  ];
}
