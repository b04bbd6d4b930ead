// Strict reading of the JSON the manifest export answers (docs/module-contract.md, "A valid module"):
// every field, type and limit; a field the platform does not know, at any depth outside JSON Schemas,
// refuses the module naming its path. Pure. The path format is described in manifest-read.ts.
import { hostStringProblem } from './hosts.ts';
import {
  at,
  boolean,
  checked,
  type Fields,
  fail,
  field,
  integerIn,
  knownFieldsOnly,
  list,
  ManifestProblem,
  object,
  once,
  optional,
  record,
  text,
} from './manifest-read.ts';
import {
  type ActionDeclaration,
  type Handles,
  type JsonSchema,
  MANIFEST_LIMITS as L,
  MANIFEST_INTERFACE,
  type Manifest,
  type OutputFromInput,
  type RequiredWhenCondition,
  type SecretDeclaration,
  type WebhookExternalIdSource,
} from './manifest-types.ts';
import { ACTION_NAME, nameProblem, pointerProblem, SECRET_NAME, versionProblem } from './names.ts';
import { configFieldProblem, schemaProblem } from './schemas.ts';

export type * from './manifest-types.ts';
export { MANIFEST_INTERFACE, MANIFEST_LIMITS } from './manifest-types.ts';

export type ManifestResult =
  | { ok: true; manifest: Manifest }
  | { ok: false; code: 'invalid_module'; path: string; message: string };

const TOP_FIELDS = [
  'interface',
  'name',
  'version',
  'title',
  'description',
  'category',
  'vendor',
  'docsUrl',
  'pricingNote',
  'capabilities',
  'configSchema',
  'secrets',
  'actions',
  'hosts',
  'hostsFromConfig',
  'secretsFromConfig',
  'needs',
  'documentsFromConfig',
  'memoryMiB',
  'handles',
];
const ACTION_FIELDS = [
  'name',
  'description',
  'input',
  'output',
  'timeoutMs',
  'retry',
  'idempotent',
  'async',
  'mappable',
  'outputFromInput',
];
const HANDLES_FIELDS = ['webhook', 'webhookExternalId', 'webhookExternalIdFromConfig', 'handoff'];

const REBUILD = 'rebuild the app with a toolkit for this platform';
// RFC 9110 token characters, lower-case only: the api looks headers up by their lower-cased names.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

const pointer = (value: unknown, path: string) => checked(value, path, pointerProblem);
const upTo =
  (max: number, min = 0) =>
  (value: unknown, path: string) =>
    text(value, path, { min, max });

function schema(value: unknown, path: string): JsonSchema {
  const problem = schemaProblem(value);
  if (problem !== null) fail(path, `not a JSON Schema that compiles: ${problem}`);
  return value as JsonSchema;
}

function httpsUrl(value: unknown, path: string): string {
  return checked(value, path, (url) => {
    // new URL trims and repairs; only a string that is already a plain https URL is kept as written.
    if (/[\s\p{Cc}]/u.test(url)) return 'expected an https URL without spaces';
    try {
      return new URL(url).protocol === 'https:' ? null : 'expected an https URL';
    } catch {
      return 'expected an https URL';
    }
  });
}

function conditionValue(value: unknown, path: string): string | number | boolean {
  if (typeof value === 'string') return text(value, path, { max: L.requiredWhenValue });
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return fail(path, 'expected a string, a number or a boolean');
}

function condition(value: unknown, path: string): RequiredWhenCondition {
  const fields = record(value, path, ['config', 'in']);
  const read: RequiredWhenCondition = { config: field(fields, 'config', path, pointer) };
  const values = optional(fields, 'in', path, (v, p) =>
    list(v, p, { min: 1, max: L.requiredWhenIn }, conditionValue),
  );
  if (values) read.in = values;
  return read;
}

function secret(value: unknown, path: string): SecretDeclaration {
  const fields = record(value, path, ['name', 'description', 'requiredWhen']);
  const declared: SecretDeclaration = {
    name: field(fields, 'name', path, (v, p) =>
      text(v, p, {
        pattern: SECRET_NAME,
        expected: 'expected a letter followed by up to 63 letters, digits or underscores',
      }),
    ),
  };
  const description = optional(fields, 'description', path, upTo(L.secretDescription));
  if (description !== undefined) declared.description = description;
  const when = optional(fields, 'requiredWhen', path, (v, p) =>
    list(v, p, { min: 1, max: L.requiredWhen }, condition),
  );
  if (when) declared.requiredWhen = when;
  return declared;
}

function outputFromInput(value: unknown, path: string): OutputFromInput {
  const fields = object(value, path);
  const kind = field(fields, 'kind', path, (v, p) =>
    v === 'schema' || v === 'keys' ? v : fail(p, 'expected schema or keys'),
  );
  knownFieldsOnly(fields, path, ['kind', 'output', 'input', ...(kind === 'keys' ? ['key'] : [])]);
  const output = field(fields, 'output', path, pointer);
  const input = field(fields, 'input', path, pointer);
  if (kind === 'schema') return { kind, output, input };
  return { kind, output, input, key: field(fields, 'key', path, upTo(Number.POSITIVE_INFINITY, 1)) };
}

function action(value: unknown, indexPath: string): ActionDeclaration {
  const fields = object(value, indexPath);
  const name = field(fields, 'name', indexPath, (v, p) =>
    text(v, p, {
      pattern: ACTION_NAME,
      expected: 'expected a letter followed by up to 99 letters, digits or underscores',
    }),
  );
  // From here on the action is named by its name (see manifest-read.ts).
  const path = at('actions', name);
  knownFieldsOnly(fields, path, ACTION_FIELDS);
  const description = optional(fields, 'description', path, upTo(L.description));
  const declared: ActionDeclaration = {
    name,
    ...(description !== undefined && { description }),
    input: field(fields, 'input', path, schema),
    output: field(fields, 'output', path, schema),
    timeoutMs: optional(fields, 'timeoutMs', path, integerIn(L.timeoutMs)) ?? L.timeoutMs.default,
    idempotent: optional(fields, 'idempotent', path, boolean) ?? false,
  };
  const retry = optional(fields, 'retry', path, (v, p) => {
    const r = record(v, p, ['maxAttempts', 'backoffMs']);
    return {
      maxAttempts: field(r, 'maxAttempts', p, integerIn(L.maxAttempts)),
      backoffMs: field(r, 'backoffMs', p, integerIn(L.backoffMs)),
    };
  });
  if (retry) declared.retry = retry;
  const wait = optional(fields, 'async', path, (v, p) => ({
    callbackTimeoutSeconds: field(
      record(v, p, ['callbackTimeoutSeconds']),
      'callbackTimeoutSeconds',
      p,
      integerIn(L.callbackTimeoutSeconds),
    ),
  }));
  if (wait) declared.async = wait;
  const mappable = optional(fields, 'mappable', path, (v, p) =>
    list(v, p, { min: 1, max: L.mappable }, pointer),
  );
  if (mappable) declared.mappable = mappable;
  const shapes = optional(fields, 'outputFromInput', path, (v, p) =>
    list(v, p, { min: 1, max: L.outputFromInput }, outputFromInput),
  );
  if (shapes) declared.outputFromInput = shapes;
  return declared;
}

function externalIdSource(value: unknown, path: string): WebhookExternalIdSource {
  const fields = record(value, path, ['json', 'header', 'query']);
  if (Object.keys(fields).filter((key) => fields[key] !== undefined).length !== 1) {
    fail(path, 'expected exactly one of json, header or query');
  }
  if (fields.json !== undefined) return { json: field(fields, 'json', path, pointer) };
  if (fields.header === undefined) return { query: field(fields, 'query', path, upTo(L.queryName, 1)) };
  const header = field(fields, 'header', path, (v, p) =>
    text(v, p, {
      min: 1,
      max: L.headerName,
      pattern: HEADER_NAME,
      expected: 'expected a lower-case header name (token characters)',
    }),
  );
  return { header };
}

function handles(value: unknown, path: string): Handles {
  const fields = record(value, path, HANDLES_FIELDS);
  const read: Handles = {
    webhook: optional(fields, 'webhook', path, boolean) ?? false,
    handoff: optional(fields, 'handoff', path, boolean) ?? false,
  };
  const source = optional(fields, 'webhookExternalId', path, externalIdSource);
  if (source) read.webhookExternalId = source;
  const fromConfig = optional(fields, 'webhookExternalIdFromConfig', path, pointer);
  if (fromConfig !== undefined) {
    const where = at(path, 'webhookExternalIdFromConfig');
    if (!read.webhook) fail(where, 'allowed only with webhook true');
    if (source) fail(where, 'not allowed together with webhookExternalId');
    read.webhookExternalIdFromConfig = fromConfig;
  }
  return read;
}

function needed(value: unknown, path: string): 'documents' {
  return value === 'documents' ? value : fail(path, 'expected documents');
}

function contractVersion(fields: Fields): void {
  const value = fields.interface;
  if (value === undefined) fail('interface', `is required; ${REBUILD}`);
  if (value !== MANIFEST_INTERFACE) {
    fail(
      'interface',
      `${JSON.stringify(value)} is not supported: this platform runs interface 2; ${REBUILD}`,
    );
  }
}

function read(value: unknown): Manifest {
  const fields = object(value, '');
  // The contract version first: a manifest of another interface has other fields, and saying so is the help.
  contractVersion(fields);
  knownFieldsOnly(fields, '', TOP_FIELDS);
  const optionalText = (key: string, reader: (value: unknown, path: string) => string) =>
    optional(fields, key, '', reader);
  const name = field(fields, 'name', '', (v, p) => checked(v, p, (n) => nameProblem(n, 'app')));
  const version = field(fields, 'version', '', (v, p) => checked(v, p, versionProblem));
  const title = optionalText('title', upTo(L.title, 1));
  const description = optionalText('description', upTo(L.description));
  const category = optionalText('category', upTo(L.category));
  const vendor = optionalText('vendor', upTo(L.vendor));
  const docsUrl = optionalText('docsUrl', httpsUrl);
  const pricingNote = optionalText('pricingNote', upTo(L.pricingNote));
  const capabilities = optional(fields, 'capabilities', '', (v, p) =>
    list(v, p, { max: L.capabilities }, upTo(Number.POSITIVE_INFINITY)),
  );
  const configSchema = field(fields, 'configSchema', '', schema);
  // secrets, hosts and handles may be left out by an app that needs none: they default to nothing.
  const secrets = optional(fields, 'secrets', '', (v, p) => list(v, p, { max: L.secrets }, secret)) ?? [];
  const actions = field(fields, 'actions', '', (v, p) =>
    list(v, p, { min: 1, max: Number.POSITIVE_INFINITY }, action),
  );
  const hosts =
    optional(fields, 'hosts', '', (v, p) =>
      list(v, p, { max: L.hosts }, (h, hp) => checked(h, hp, hostStringProblem)),
    ) ?? [];
  const hostsFromConfig = optional(fields, 'hostsFromConfig', '', (v, p) =>
    list(v, p, { max: L.hostsFromConfig }, pointer),
  );
  const secretsFromConfig = optional(fields, 'secretsFromConfig', '', pointer);
  const needs = optional(fields, 'needs', '', (v, p) => list(v, p, { max: 1 }, needed));
  const documentsFromConfig = optional(fields, 'documentsFromConfig', '', pointer);
  const memoryMiB = optional(fields, 'memoryMiB', '', integerIn(L.memoryMiB));
  // Fields in one fixed order (interface, name, version first), defaults filled in, optional ones left out.
  const manifest: Manifest = {
    interface: MANIFEST_INTERFACE,
    name,
    version,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(category !== undefined && { category }),
    ...(vendor !== undefined && { vendor }),
    ...(docsUrl !== undefined && { docsUrl }),
    ...(pricingNote !== undefined && { pricingNote }),
    capabilities: capabilities ?? [],
    configSchema,
    secrets,
    actions,
    hosts,
    hostsFromConfig: hostsFromConfig ?? [],
    ...(secretsFromConfig !== undefined && { secretsFromConfig }),
    needs: needs ?? [],
    ...(documentsFromConfig !== undefined && { documentsFromConfig }),
    memoryMiB: memoryMiB ?? L.memoryMiB.default,
    handles: optional(fields, 'handles', '', handles) ?? { webhook: false, handoff: false },
  };
  crossChecks(manifest);
  return manifest;
}

/** Rules between fields, checked once every field has its own shape. */
function crossChecks(manifest: Manifest): void {
  once(
    manifest.secrets.map((s) => s.name),
    'secrets',
    'secret name',
  );
  once(
    manifest.actions.map((a) => a.name),
    'actions',
    'action name',
  );
  once(manifest.hosts, 'hosts', 'host');
  once(manifest.hostsFromConfig, 'hostsFromConfig', 'pointer');
  const configField = (fieldPointer: string, path: string) => {
    const problem = configFieldProblem(manifest.configSchema, fieldPointer);
    if (problem !== null) fail(path, problem);
  };
  for (const [i, p] of manifest.hostsFromConfig.entries()) configField(p, at('hostsFromConfig', i));
  if (manifest.documentsFromConfig !== undefined) {
    if (!manifest.needs.includes('documents'))
      fail('documentsFromConfig', 'allowed only with needs [documents]');
    configField(manifest.documentsFromConfig, 'documentsFromConfig');
  }
  const externalIdField = manifest.handles.webhookExternalIdFromConfig;
  if (externalIdField !== undefined) configField(externalIdField, 'handles.webhookExternalIdFromConfig');
}

/** Parses a manifest already decoded from JSON. */
export function parseManifest(value: unknown): ManifestResult {
  try {
    return { ok: true, manifest: read(value) };
  } catch (error) {
    if (!(error instanceof ManifestProblem)) throw error;
    const message =
      error.path === '' ? `manifest: ${error.problem}` : `manifest: ${error.path}: ${error.problem}`;
    return { ok: false, code: 'invalid_module', path: error.path, message };
  }
}

/** Parses the manifest export's answer as text. */
export function parseManifestJson(json: string): ManifestResult {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { ok: false, code: 'invalid_module', path: '', message: 'manifest: the answer is not JSON' };
  }
  return parseManifest(value);
}
