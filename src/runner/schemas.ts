// Request bodies of the runner's routes (internal; documented in docs/runner.md).
import { Type } from 'typebox';

/**
 * A string or null, as one JSON Schema type list. Bodies are validated as sent (no coercion), so null
 * reaches the module as null; the type list also names the field once in a refusal.
 */
const StringOrNull = (options: { maxLength: number; default?: null }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Call = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    tenantId: Type.String({ format: 'uuid' }),
    callbackUrl: Type.Optional(StringOrNull({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
const CacheEntry = Type.Object(
  { name: Type.String(), value: Type.String(), expiresAt: Type.String({ format: 'date-time' }) },
  { additionalProperties: false },
);

/** What every export call carries: the module, the call, the install's config, secrets, hosts and cache. */
const common = {
  module: Type.Object({ sha256: Sha256 }, { additionalProperties: false }),
  call: Call,
  config: Type.Record(Type.String(), Type.Unknown()),
  secrets: Type.Record(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$' }), Type.String(), {
    default: {},
  }),
  hosts: Type.Array(Type.String({ maxLength: 259 }), { maxItems: 40, default: [] }),
  /** null: the deployment keeps no cached values (no SECRET_STORE_KEY), so every cache operation is refused. */
  cache: Type.Union([Type.Array(CacheEntry, { maxItems: 64 }), Type.Null()], { default: [] }),
};

export const InvokeBody = Type.Object(
  {
    ...common,
    action: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_]{0,99}$' }),
    idempotencyKey: StringOrNull({ maxLength: 500, default: null }),
    input: Type.Unknown(),
    documents: Type.Union(
      [Type.Object({ token: Type.String({ minLength: 1 }) }, { additionalProperties: false }), Type.Null()],
      {
        default: null,
      },
    ),
    timeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: 15_000 }),
  },
  { additionalProperties: false },
);

export const WebhookBody = Type.Object(
  {
    ...common,
    request: Type.Object(
      {
        method: Type.String({ maxLength: 10 }),
        headers: Type.Record(Type.String(), Type.String()),
        query: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
        bodyBase64: Type.String({ maxLength: 350_000 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const HandoffBody = Type.Object(
  {
    ...common,
    externalId: Type.String({ minLength: 1, maxLength: 200 }),
    returnUrl: Type.String({ maxLength: 2000, pattern: '^https?://' }),
  },
  { additionalProperties: false },
);
