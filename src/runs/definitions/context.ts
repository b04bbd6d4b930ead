// What the definitions' services share: the context a route hands them and the rows they pass around.
import type { Database } from '../../db/pool.ts';
import type { AuthenticatedPrincipal } from '../../http/auth.ts';
import type { definitions, definitionVersions } from '../tables.ts';

export interface DefinitionContext {
  database: Database;
  principal: AuthenticatedPrincipal;
  requestId: string;
  /** WEBHOOK_PUBLIC_URL, read by validation (install_no_webhook). */
  settings: { webhookBase: string | null };
}

export type DefinitionRow = typeof definitions.$inferSelect;
export type VersionRow = typeof definitionVersions.$inferSelect;
