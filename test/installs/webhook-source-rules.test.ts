// Where an install's config may say a webhook's external id is read (src/installs/webhook-source-rules.ts):
// any app's own source (the body, a header, the query); for http-connector only the body or a header its
// scheme signs, never the query.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configIssues } from '../../src/installs/plan.ts';
import { webhookSourceIssues } from '../../src/installs/webhook-source-rules.ts';
import type { Manifest } from '../../src/module/manifest-types.ts';

const CONNECTOR = JSON.parse(
  readFileSync(new URL('../../apps/build/http-connector-1.0.0.manifest.json', import.meta.url), 'utf8'),
) as Manifest;
const POINTER = '/webhook/externalIdFrom';
const connector = {
  name: 'http-connector',
  handles: { webhook: true, handoff: false, webhookExternalIdFromConfig: POINTER },
};
const otherApp = {
  name: 'kyc-vendor',
  handles: { webhook: true, handoff: false, webhookExternalIdFromConfig: '/idSource' },
};

const webhook = (
  scheme: string | undefined,
  externalIdFrom: unknown,
  more: Record<string, unknown> = {},
) => ({
  webhook: { ...(scheme === undefined ? {} : { scheme }), externalIdFrom, ...more },
});

describe('webhookSourceIssues', () => {
  it.each([
    ['no source pointer in the manifest', { name: 'x', handles: { webhook: true, handoff: false } }, {}],
    ['no source in the config (the install receives no webhooks)', otherApp, {}],
    ['a JSON Pointer into the body', otherApp, { idSource: { json: '/session' } }],
    ['a header of another app (its own scheme decides)', otherApp, { idSource: { header: 'X-Session' } }],
    ['the query, for an app other than the connector', otherApp, { idSource: { query: 'sid' } }],
    ['connector: the body under hmac', connector, webhook('hmac', { json: '/id' })],
    ['connector: the body under any scheme', connector, webhook('token', { json: '/id' })],
    [
      'connector: webhook-id under standard-webhooks',
      connector,
      webhook('standard-webhooks', { header: 'webhook-id' }),
    ],
    [
      'connector: a signed header in any case',
      connector,
      webhook('standard-webhooks', { header: 'Webhook-Timestamp' }),
    ],
    [
      'connector: the default timestamp header of hmac-timestamped',
      connector,
      webhook('hmac-timestamped', { header: 'x-timestamp' }),
    ],
    [
      'connector: its own timestamp header of hmac-timestamped',
      connector,
      webhook('hmac-timestamped', { header: 'X-Sent-At' }, { timestampHeader: 'x-sent-at' }),
    ],
  ])('allows %s', (_case, manifest, config) => {
    expect(webhookSourceIssues(manifest, config)).toEqual([]);
  });

  it.each([
    ['the query, for the connector', connector, webhook('hmac', { query: 'sid' }), POINTER, /query/],
    [
      'the query, for the connector under a scheme that signs headers',
      connector,
      webhook('standard-webhooks', { query: 'webhook-id' }),
      POINTER,
      /query/,
    ],
    [
      'a header under hmac (it signs the body only)',
      connector,
      webhook('hmac', { header: 'x-session' }),
      POINTER,
      /signs no header/,
    ],
    [
      'a header under a scheme that signs nothing',
      connector,
      webhook('token', { header: 'x-session' }),
      POINTER,
      /signs no header/,
    ],
    [
      'a header when no scheme is named',
      connector,
      webhook(undefined, { header: 'x-session' }),
      POINTER,
      /signs no header/,
    ],
    [
      'an unsigned header under standard-webhooks',
      connector,
      webhook('standard-webhooks', { header: 'x-session' }),
      POINTER,
      /only the headers webhook-id, webhook-timestamp/,
    ],
    [
      'another header than the timestamp under hmac-timestamped',
      connector,
      webhook('hmac-timestamped', { header: 'x-session' }),
      POINTER,
      /only the headers x-timestamp/,
    ],
  ])('refuses %s, at the source’s pointer', (_case, manifest, config, path, message) => {
    expect(webhookSourceIssues(manifest, config)).toEqual([
      { path, message: expect.stringMatching(message) },
    ]);
  });
});

describe('configIssues', () => {
  const RULES = { allowPrivateNetworks: false, ownHosts: [] };
  const BASE = { baseUrl: 'https://api.vendor.example' };

  it('answers the rule once the config holds under its schema', () => {
    const permissive = { ...CONNECTOR, configSchema: { type: 'object' } } as Manifest;
    const config = { ...BASE, ...webhook('token', { header: 'x-session' }) };
    expect(configIssues(permissive, config, RULES).issues).toEqual([
      { path: POINTER, message: expect.stringMatching(/signs no header/) },
    ]);
  });

  it('lets the connector’s own schema speak first, as for every schema issue', () => {
    const config = { ...BASE, ...webhook('hmac', { header: 'x-session' }) };
    const issues = configIssues(CONNECTOR, config, RULES).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((issue) => issue.path.startsWith(POINTER))).toBe(true);
  });

  it('keeps the connector’s signed sources', () => {
    const config = { ...BASE, ...webhook('standard-webhooks', { header: 'webhook-id' }) };
    expect(configIssues(CONNECTOR, config, RULES).issues).toEqual([]);
  });
});
