// An example answer for the description: what POST /apps/uploads answers for a small screening app.
import type { Static } from 'typebox';
import type { VersionSummary } from './schemas.ts';

export const uploadedExample: Static<typeof VersionSummary> = {
  id: '0f3c2a6e-8d1b-4c57-9a1e-2b7d5e4f6a10',
  publisher: 'tenant',
  platformSource: null,
  name: 'sanctions-screen',
  version: '1.0.0',
  status: 'uploaded',
  sha256: '9c1185a5c5e9fc54612808977ee8f548b2258d31f3e7d9a5b1c0e6f4d2a8b7c3',
  sizeBytes: 48213,
  title: 'Sanctions screening',
  description: 'Screens a person against a vendor’s sanctions lists.',
  category: 'compliance',
  vendor: 'Example Screening Ltd',
  docsUrl: 'https://docs.screening.example/api',
  pricingNote: 'Billed per screened person by the vendor.',
  capabilities: ['screening'],
  secrets: [{ name: 'API_KEY', description: 'The vendor API key' }],
  hosts: ['api.screening.example'],
  hostsFromConfig: [],
  secretsFromConfig: null,
  needs: [],
  documentsFromConfig: null,
  memoryMiB: 64,
  handles: { webhook: false, handoff: false },
  actions: [
    {
      name: 'screen',
      description: 'Screen one person',
      inputSchema: {
        type: 'object',
        required: ['fullName'],
        properties: { fullName: { type: 'string' }, birthDate: { type: 'string', format: 'date' } },
      },
      outputSchema: {
        type: 'object',
        required: ['hits'],
        properties: { hits: { type: 'integer', minimum: 0 } },
      },
      timeoutMs: 15000,
      idempotent: true,
    },
  ],
  configSchema: { type: 'object', properties: { threshold: { type: 'number', default: 0.85 } } },
  createdAt: '2026-11-24T08:00:00.000Z',
  publishedAt: null,
  review: null,
  provenance: null,
};
