// Manifests for the parser's tests: a complete one with every field, and ways to read a refusal.
import { expect } from 'vitest';
import { parseManifest } from '../../src/module/manifest.ts';

type Json = Record<string, unknown>;

/** Every manifest field written out, defaults included, so parsing gives it back. */
export function fullManifest(): Json {
  return {
    interface: 2,
    name: 'kyc-screen',
    version: '1.4.0-beta.2',
    title: 'KYC screening',
    description: 'Screens subjects against sanction lists.',
    category: 'Screening',
    vendor: 'Example Vendor Ltd',
    docsUrl: 'https://docs.example.com/kyc',
    pricingNote: 'Charged per screening.',
    capabilities: ['screening', 'sanctions'],
    configSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', enum: ['eu', 'us'], default: 'eu' },
        baseUrl: { type: 'string', format: 'uri' },
        readDocuments: { type: 'boolean' },
        externalIdSource: { type: 'object' },
        variables: { type: 'array' },
      },
    },
    secrets: [
      { name: 'API_KEY', description: 'Vendor API key' },
      {
        name: 'webhook_secret',
        requiredWhen: [{ config: '/region', in: ['eu', 1, true] }, { config: '/baseUrl' }],
      },
    ],
    actions: [
      {
        name: 'screen',
        description: 'Screen one subject.',
        input: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        output: { type: 'object', properties: { hits: { type: 'array' } } },
        timeoutMs: 30_000,
        retry: { maxAttempts: 3, backoffMs: 500 },
        idempotent: true,
        async: { callbackTimeoutSeconds: 3600 },
        mappable: ['/name'],
        outputFromInput: [
          { kind: 'schema', output: '/extra', input: '/extraSchema' },
          { kind: 'keys', output: '/byList', input: '/lists', key: 'id' },
        ],
      },
      { name: 'status', input: true, output: {}, timeoutMs: 15_000, idempotent: false },
    ],
    hosts: ['api.example.com', '*.eu.example.com', 'sandbox.example.com:8443'],
    hostsFromConfig: ['/baseUrl'],
    secretsFromConfig: '/variables',
    needs: ['documents'],
    documentsFromConfig: '/readDocuments',
    memoryMiB: 128,
    handles: { webhook: true, webhookExternalIdFromConfig: '/externalIdSource', handoff: true },
  };
}

/** The least a manifest may say. */
export function minimalManifest(): Json {
  return {
    interface: 2,
    name: 'minimal',
    version: '0.1.0',
    configSchema: { type: 'object' },
    secrets: [],
    actions: [{ name: 'run', input: {}, output: {} }],
    hosts: [],
    handles: { webhook: false },
  };
}

/** The full manifest changed by `change`, which may mutate it freely. */
export function fullWith(
  change: (manifest: Json & { actions: Json[]; secrets: Json[]; handles: Json }) => void,
): Json {
  const manifest = fullManifest() as Json & { actions: Json[]; secrets: Json[]; handles: Json };
  change(manifest);
  return manifest;
}

export function accepted(value: unknown) {
  const result = parseManifest(value);
  if (!result.ok) throw new Error(`refused: ${result.message}`);
  return result.manifest;
}

/** The refusal of a manifest that must be refused. */
export function refused(value: unknown): { path: string; message: string } {
  const result = parseManifest(value);
  if (result.ok) throw new Error('the manifest was accepted');
  expect(result.code).toBe('invalid_module');
  expect(result.message.startsWith(result.path === '' ? 'manifest: ' : `manifest: ${result.path}: `)).toBe(
    true,
  );
  return { path: result.path, message: result.message };
}

/** The full manifest with the value at `path` replaced, or removed when `value` is undefined. */
export function fullSet(path: readonly (string | number)[], value: unknown): Json {
  const manifest = fullManifest();
  let parent: Record<string | number, unknown> = manifest;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return manifest;
}
