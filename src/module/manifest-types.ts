// The manifest as the platform keeps it once parsed (docs/module-contract.md): every default filled in,
// optional fields absent rather than null, so what the api stores and serves is exactly what was accepted.

/** The contract version this platform runs: a manifest naming another interface refuses the module. */
export const MANIFEST_INTERFACE = 2;

/** The manifest's counts, lengths (in characters) and ranges: a value past one refuses the module. */
export const MANIFEST_LIMITS = {
  capabilities: 20,
  secrets: 20,
  hosts: 20,
  hostsFromConfig: 5,
  mappable: 20,
  outputFromInput: 10,
  requiredWhen: 10,
  requiredWhenIn: 20,
  requiredWhenValue: 200,
  title: 60,
  description: 500,
  category: 60,
  vendor: 100,
  pricingNote: 280,
  secretDescription: 200,
  headerName: 100,
  queryName: 100,
  memoryMiB: { min: 16, max: 256, default: 64 },
  timeoutMs: { min: 100, max: 120_000, default: 15_000 },
  maxAttempts: { min: 1, max: 5 },
  backoffMs: { min: 0, max: 60_000 },
  callbackTimeoutSeconds: { min: 1, max: 604_800 },
} as const;

/** A JSON Schema (2020-12): an object, or true / false. */
export type JsonSchema = { [keyword: string]: unknown } | boolean;

export interface RequiredWhenCondition {
  /** JSON Pointer into the install's config. */
  config: string;
  /** Absent: the secret is required whenever the config holds a value there. */
  in?: (string | number | boolean)[];
}

export interface SecretDeclaration {
  name: string;
  description?: string;
  requiredWhen?: RequiredWhenCondition[];
}

export interface RetryPolicy {
  /** Attempts including the first. */
  maxAttempts: number;
  /** The delay before attempt n + 1 is backoffMs × n. */
  backoffMs: number;
}

export type OutputFromInput =
  | { kind: 'schema'; output: string; input: string }
  | { kind: 'keys'; output: string; input: string; key: string };

export interface ActionDeclaration {
  name: string;
  description?: string;
  input: JsonSchema;
  output: JsonSchema;
  timeoutMs: number;
  retry?: RetryPolicy;
  idempotent: boolean;
  async?: { callbackTimeoutSeconds: number };
  mappable?: string[];
  outputFromInput?: OutputFromInput[];
}

/** Where the api reads a vendor webhook's external id when the URL carries no ?externalId=. */
export type WebhookExternalIdSource = { json: string } | { header: string } | { query: string };

export interface Handles {
  webhook: boolean;
  webhookExternalId?: WebhookExternalIdSource;
  /** JSON Pointer to a config field holding a WebhookExternalIdSource. */
  webhookExternalIdFromConfig?: string;
  handoff: boolean;
}

export type Need = 'documents';

export interface Manifest {
  interface: typeof MANIFEST_INTERFACE;
  name: string;
  version: string;
  title?: string;
  description?: string;
  category?: string;
  vendor?: string;
  docsUrl?: string;
  pricingNote?: string;
  capabilities: string[];
  configSchema: JsonSchema;
  secrets: SecretDeclaration[];
  actions: ActionDeclaration[];
  hosts: string[];
  hostsFromConfig: string[];
  secretsFromConfig?: string;
  needs: Need[];
  documentsFromConfig?: string;
  memoryMiB: number;
  handles: Handles;
}
