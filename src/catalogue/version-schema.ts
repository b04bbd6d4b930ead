// The AppVersionSummary (spec part 1 §2.2) as a response schema: what versionSummary in views.ts answers,
// field for field. Fastify serialises answers with it, so a field views.ts adds must be added here too.
import { type TSchema, Type } from 'typebox';

export const DateTime = Type.String({ format: 'date-time' });
/** A field that may be null: `X | null`. */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A JSON Schema as the manifest carries it: any object, or true / false. */
const JsonSchemaValue = Type.Unknown({ description: 'A JSON Schema (2020-12)' });

const RequiredWhen = Type.Object(
  {
    config: Type.String({ description: 'JSON Pointer into the install’s config' }),
    in: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
  },
  { additionalProperties: false },
);

const SecretDeclaration = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    requiredWhen: Type.Optional(Type.Array(RequiredWhen)),
  },
  { additionalProperties: false },
);

const WebhookExternalId = Type.Union([
  Type.Object({ json: Type.String() }, { additionalProperties: false }),
  Type.Object({ header: Type.String() }, { additionalProperties: false }),
  Type.Object({ query: Type.String() }, { additionalProperties: false }),
]);

const Handles = Type.Object(
  {
    webhook: Type.Boolean(),
    webhookExternalId: Type.Optional(WebhookExternalId),
    webhookExternalIdFromConfig: Type.Optional(Type.String()),
    handoff: Type.Boolean(),
  },
  { additionalProperties: false },
);

const OutputFromInput = Type.Union([
  Type.Object(
    { kind: Type.Literal('schema'), output: Type.String(), input: Type.String() },
    { additionalProperties: false },
  ),
  Type.Object(
    { kind: Type.Literal('keys'), output: Type.String(), input: Type.String(), key: Type.String() },
    { additionalProperties: false },
  ),
]);

/** An action as a version reports it (AppActionSummary): input and output as inputSchema and outputSchema. */
export const ActionSummary = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    inputSchema: JsonSchemaValue,
    outputSchema: JsonSchemaValue,
    timeoutMs: Type.Integer(),
    retry: Type.Optional(
      Type.Object(
        { maxAttempts: Type.Integer(), backoffMs: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    idempotent: Type.Boolean(),
    async: Type.Optional(
      Type.Object({ callbackTimeoutSeconds: Type.Integer() }, { additionalProperties: false }),
    ),
    mappable: Type.Optional(Type.Array(Type.String())),
    outputFromInput: Type.Optional(Type.Array(OutputFromInput)),
  },
  { additionalProperties: false, title: 'AppActionSummary' },
);

const Review = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    tenantId: Type.String({ format: 'uuid' }),
    versionId: Type.String({ format: 'uuid' }),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('approved'),
      Type.Literal('rejected'),
      Type.Literal('withdrawn'),
    ]),
    requestedBy: Type.String(),
    requestedAt: DateTime,
    decidedBy: nullable(Type.String()),
    decidedAt: nullable(DateTime),
    comment: nullable(Type.String()),
  },
  { additionalProperties: false },
);

export const VersionSummarySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    publisher: Type.String({ description: 'platform, or the tenant' }),
    platformSource: nullable(Type.Union([Type.Literal('release'), Type.Literal('operator')])),
    name: Type.String(),
    version: Type.String(),
    status: Type.Union([Type.Literal('uploaded'), Type.Literal('published'), Type.Literal('withdrawn')]),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    sizeBytes: Type.Integer({ minimum: 0 }),
    title: nullable(Type.String()),
    description: nullable(Type.String()),
    category: nullable(Type.String()),
    vendor: nullable(Type.String()),
    docsUrl: nullable(Type.String()),
    pricingNote: nullable(Type.String()),
    capabilities: Type.Array(Type.String()),
    secrets: Type.Array(SecretDeclaration),
    hosts: Type.Array(Type.String()),
    hostsFromConfig: Type.Array(Type.String()),
    secretsFromConfig: nullable(Type.String()),
    needs: Type.Array(Type.Literal('documents')),
    documentsFromConfig: nullable(Type.String()),
    memoryMiB: Type.Integer(),
    handles: Handles,
    actions: Type.Array(ActionSummary),
    configSchema: JsonSchemaValue,
    createdAt: DateTime,
    publishedAt: nullable(DateTime),
    review: nullable(Review),
    provenance: nullable(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false, title: 'AppVersionSummary' },
);
