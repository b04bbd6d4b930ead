// The catalogue's answers as schemas (the AppVersionSummary and what carries it):
// Fastify serialises the answers with them and the OpenAPI description is generated from them, so each
// names every field views.ts and lifecycle.ts write, and nothing else.
import { Type } from 'typebox';
import { pageOf } from '../http/paging.ts';
import { dateTime, nullable } from '../http/responses.ts';

const Uuid = Type.String({ format: 'uuid' });
const closed = { additionalProperties: false } as const;

export const AppName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,99}$' });

const JsonSchemaValue = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Boolean()], {
  description: 'A JSON Schema (draft 2020-12): an object or a boolean',
});

const SecretDeclaration = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    requiredWhen: Type.Optional(
      Type.Array(
        Type.Object(
          {
            config: Type.String({ description: 'JSON Pointer into the install’s config' }),
            in: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
          },
          closed,
        ),
      ),
    ),
  },
  closed,
);

const WebhookExternalIdSource = Type.Union([
  Type.Object({ json: Type.String({ description: 'JSON Pointer into a JSON body' }) }, closed),
  Type.Object({ header: Type.String() }, closed),
  Type.Object({ query: Type.String() }, closed),
]);

const Handles = Type.Object(
  {
    webhook: Type.Boolean(),
    webhookExternalId: Type.Optional(WebhookExternalIdSource),
    webhookExternalIdFromConfig: Type.Optional(Type.String()),
    handoff: Type.Boolean(),
  },
  closed,
);

const OutputFromInput = Type.Union([
  Type.Object({ kind: Type.Literal('schema'), output: Type.String(), input: Type.String() }, closed),
  Type.Object(
    { kind: Type.Literal('keys'), output: Type.String(), input: Type.String(), key: Type.String() },
    closed,
  ),
]);

/** AppActionSummary: the manifest's action with input and output as inputSchema and outputSchema. */
const ActionSummary = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.String()),
    inputSchema: JsonSchemaValue,
    outputSchema: JsonSchemaValue,
    timeoutMs: Type.Integer(),
    retry: Type.Optional(Type.Object({ maxAttempts: Type.Integer(), backoffMs: Type.Integer() }, closed)),
    idempotent: Type.Boolean(),
    async: Type.Optional(Type.Object({ callbackTimeoutSeconds: Type.Integer() }, closed)),
    mappable: Type.Optional(Type.Array(Type.String())),
    outputFromInput: Type.Optional(Type.Array(OutputFromInput)),
  },
  closed,
);

const DecisionStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('rejected'),
  Type.Literal('withdrawn'),
]);

/** The operator's review of a tenant's own version. */
export const Review = Type.Object(
  {
    id: Uuid,
    tenantId: Uuid,
    versionId: Uuid,
    status: DecisionStatus,
    requestedBy: Type.String(),
    requestedAt: dateTime(),
    decidedBy: nullable(Type.String()),
    decidedAt: nullable(dateTime()),
    comment: nullable(Type.String()),
  },
  { ...closed, title: 'AppReview' },
);

/** A publish request of a tenant's own version, while the tenant's approvals hold publishing. */
export const Approval = Type.Object(
  {
    id: Uuid,
    versionId: Uuid,
    name: Type.String(),
    version: Type.String(),
    status: DecisionStatus,
    fourEyes: Type.Boolean({
      description: 'The requester may not approve it (the settings when it was made)',
    }),
    requestedBy: Type.String(),
    requestedByName: nullable(Type.String()),
    requestedAt: dateTime(),
    decidedBy: nullable(Type.String()),
    decidedAt: nullable(dateTime()),
    comment: nullable(Type.String()),
  },
  { ...closed, title: 'AppApproval' },
);

const Text = nullable(Type.String());

const Signer = Type.Union(
  [
    Type.Object(
      {
        kind: Type.Literal('keyless'),
        issuer: Type.String({ description: 'The certificate’s OIDC issuer' }),
        identity: Type.String({ description: 'The certificate’s subject alternative name' }),
      },
      closed,
    ),
    Type.Object(
      {
        kind: Type.Literal('key'),
        keyId: Type.String({ description: 'sha256: and the hex of the DER public key’s hash' }),
      },
      closed,
    ),
    Type.Object({ kind: Type.Literal('release') }, closed),
  ],
  {
    description:
      'Who signed: a keyless certificate’s issuer and identity, a key’s fingerprint, or the platform’s release',
  },
);

const Provenance = Type.Object(
  {
    kind: Type.Union([Type.Literal('signature'), Type.Literal('attestation'), Type.Literal('release')], {
      description:
        'A message signature over the module, an in-toto statement naming it, or a version of the release catalogue (shipped with the platform, trusted)',
    }),
    signer: Signer,
    source: nullable(Type.String(), { description: 'The source repository a keyless certificate names' }),
    transparencyLog: nullable(
      Type.Object(
        {
          logId: Type.String({ description: 'The log’s id (hex)' }),
          logIndex: Type.String(),
          integratedTime: nullable(dateTime()),
        },
        closed,
      ),
    ),
    signedAt: nullable(dateTime(), { description: 'The log entry’s time, else the RFC 3161 timestamp’s' }),
    trusted: Type.Boolean({
      description: 'Whether APP_TRUSTED_SIGNERS names the signer; always true for the release',
    }),
    trustedSigner: nullable(Type.String(), { description: 'The name of the policy entry that trusts it' }),
  },
  { ...closed, title: 'AppVersionProvenance' },
);

export const VersionSummary = Type.Object(
  {
    id: Uuid,
    publisher: Type.Union([Type.Literal('platform'), Type.Literal('tenant')]),
    platformSource: nullable(Type.Union([Type.Literal('release'), Type.Literal('operator')])),
    name: AppName,
    version: Type.String({ maxLength: 50 }),
    status: Type.Union([Type.Literal('uploaded'), Type.Literal('published'), Type.Literal('withdrawn')]),
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    sizeBytes: Type.Integer({ minimum: 0 }),
    title: Text,
    description: Text,
    category: Text,
    vendor: Text,
    docsUrl: Text,
    pricingNote: Text,
    capabilities: Type.Array(Type.String()),
    secrets: Type.Array(SecretDeclaration),
    hosts: Type.Array(Type.String()),
    hostsFromConfig: Type.Array(Type.String()),
    secretsFromConfig: Text,
    needs: Type.Array(Type.Literal('documents')),
    documentsFromConfig: Text,
    memoryMiB: Type.Integer(),
    handles: Handles,
    actions: Type.Array(ActionSummary),
    configSchema: JsonSchemaValue,
    createdAt: dateTime(),
    publishedAt: nullable(dateTime()),
    review: nullable(Review, { description: 'The operator’s latest review, for the tenant’s own version' }),
    block: Type.Optional(
      nullable(
        Type.Object(
          {
            scope: Type.Union([Type.Literal('module'), Type.Literal('app')], {
              description: 'module: this module, by its hash; app: every version of its app',
            }),
            reason: Type.String(),
            blockedAt: Type.String({ format: 'date-time' }),
          },
          closed,
        ),
        {
          description:
            'In the catalogue’s reads (GET /apps, /apps/:name, /apps/:name/versions): the operator’s oldest block in force covering it; null when none. Calls, installs and publishing it answer 409 app_blocked while it holds.',
        },
      ),
    ),
    provenance: nullable(Provenance, {
      description: 'The Sigstore bundle the version was proven by (docs/provenance.md); null when none',
    }),
  },
  { ...closed, title: 'AppVersionSummary' },
);

const Signatures = Type.Union([Type.Literal('off'), Type.Literal('optional'), Type.Literal('required')], {
  description: 'The deployment’s signature mode (APP_SIGNATURES)',
});

const appEntryFields = {
  name: AppName,
  publisher: Type.Union([Type.Literal('platform'), Type.Literal('tenant')]),
  latest: VersionSummary,
  versions: Type.Integer({ minimum: 1, description: 'How many of its versions the caller sees' }),
  installs: Type.Array(Type.String(), { description: 'The tenant’s installs of the app, by name' }),
};

/** One app of GET /apps: its highest version the caller sees, with the tenant's installs of it. */
export const AppEntry = Type.Object(appEntryFields, { ...closed, title: 'AppEntry' });

export const AppList = Type.Object({ items: Type.Array(AppEntry), signatures: Signatures }, closed);

/** GET /apps/:name: the entry, every version the caller sees (highest first), and the signature mode. */
export const AppDetail = Type.Object(
  { ...appEntryFields, items: Type.Array(VersionSummary), signatures: Signatures },
  closed,
);

export const VersionList = Type.Object({ items: Type.Array(VersionSummary) }, closed);
export const ApprovalList = pageOf(Approval);

/** Publish: 200 the published version; 202 with the approval request or the operator's review it opened. */
export const Published = Type.Object({ version: VersionSummary }, closed);
export const PublishHeld = Type.Object(
  { version: VersionSummary, approval: Type.Optional(Approval), review: Type.Optional(Review) },
  closed,
);

/** Approve and reject: the version with the decided request; 202 adds the operator's review it opened. */
export const Decided = Type.Object({ version: VersionSummary, approval: Approval }, closed);
export const DecidedForReview = Type.Object(
  { version: VersionSummary, approval: Approval, review: Review },
  closed,
);
