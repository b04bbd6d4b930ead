// Who calls an install's names: the port the installs layer asks through (renames, alias removal, GET
// …/usage) and the definitions layer answers (src/runs/definitions/callers.ts, wired in by the api), so
// installs never import the layer built on top of it. Without one wired in, nobody calls.
import { Type } from 'typebox';
import type { Database, Queryable, Tx } from '../db/pool.ts';
import type { AuthenticatedPrincipal } from '../http/auth.ts';

export type DefinitionKindName = 'workflow' | 'rule_set';

/** A definition version as install_in_use and alias_in_use name it (details.definitions). */
export interface DefinitionRef {
  kind: DefinitionKindName;
  key: string;
  version: number;
}

/** Who still calls a name of an install: published definitions and runs in flight. */
export interface Callers {
  definitions: DefinitionRef[];
  runs: { id: string }[];
}

/** One item of GET /app-installs/:install/usage. */
export interface Usage extends DefinitionRef {
  calledAs: string;
  actions: string[];
}

/**
 * A definition a rename's rewrite wrote a draft of: left a draft, published, or held for approval
 * (approval_requested, with the request's approvalId) when the tenant requires approval for definitions.
 */
export interface Rewritten extends DefinitionRef {
  status: 'draft' | 'published' | 'approval_requested';
  approvalId?: string;
}

export interface Skipped {
  kind: DefinitionKindName;
  key: string;
  reason: 'draft_pending';
}

export type Rewrite = 'drafts' | 'publish';

/** Who asks for a rewrite, as an install route knows them (an InstallContext is one). */
export interface CallerContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
  settings: { webhookBase: string | null };
}

export interface InstallCallers {
  /** Published definitions naming `name` and runs in flight calling it, read in the caller's transaction. */
  callersOf(tx: Tx, tenantId: string, name: string): Promise<Callers>;
  /** A rename's rewrite: new drafts naming `to` for every definition calling one of `names` (and publish). */
  rewrite(
    ctx: CallerContext,
    names: ReadonlySet<string>,
    to: string,
    rewrite: Rewrite,
  ): Promise<{ definitions: Rewritten[]; skipped: Skipped[] }>;
  /** The published definitions naming an install by any of `names` (its current name first). */
  usage(db: Queryable, tenantId: string, names: readonly string[]): Promise<Usage[]>;
}

/** A deployment without the definitions layer: nobody calls an install. */
export const NO_CALLERS: InstallCallers = {
  callersOf: async () => ({ definitions: [], runs: [] }),
  rewrite: async () => ({ definitions: [], skipped: [] }),
  usage: async () => [],
};

const strict = { additionalProperties: false } as const;

/** GET /app-installs/:install/usage. */
export const UsageSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          kind: Type.Union([Type.Literal('workflow'), Type.Literal('rule_set')]),
          key: Type.String({ description: 'The definition’s key' }),
          version: Type.Integer({ description: 'The current published version' }),
          calledAs: Type.String({ description: 'The name the definition uses: the install’s, or an alias' }),
          actions: Type.Array(Type.String(), { description: 'The actions it calls under that name' }),
        },
        strict,
      ),
    ),
  },
  strict,
);
