// Where an install may read its webhooks' external id from (docs/callbacks.md "Event ids and external
// ids"). The platform finds a webhook's session by that id before the module checks the vendor's
// signature; an id read where the signature does not reach lets anyone holding one signed delivery point
// it at another pending session of the install. So a config that names the source
// (handles.webhookExternalIdFromConfig) is refused when the source cannot be signed:
//   - any app: the query string, which no signature scheme covers;
//   - http-connector (the platform's generic connector, whose config names its scheme beside the source):
//     a header its scheme does not sign — hmac signs only the body, hmac-timestamped also its timestamp
//     header, standard-webhooks its webhook-id and webhook-timestamp headers, any other scheme nothing.
// Other apps' headers are their own scheme's business: the platform cannot know what they sign. Pure.
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
  if (!isRecord(source)) return [];
  if (typeof source.query === 'string') {
    return [
      {
        path: pointer,
        message:
          'a webhook’s external id cannot be read from the query, which no signature covers: read it from the body or a signed header',
      },
    ];
  }
  const signedHeaders = SCHEMED_APPS[manifest.name];
  if (typeof source.header !== 'string' || !signedHeaders) return [];
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
