// `ops audit`: the instance's own trail, newest first (docs/operations.md "ops audit").
import type { Command } from 'commander';
import { listInstanceTrail } from '../audit/trail.ts';
import { opsCommand, runs, tenantArg } from './commands.ts';
import { GROUPS } from './groups.ts';
import { table } from './output.ts';
import { type OpsIO, OpsUsageError } from './runtime.ts';

export const DEFAULT_AUDIT_LIMIT = 50;
export const MAX_AUDIT_LIMIT = 500;

interface AuditOptions {
  json?: boolean;
  since?: string;
  action?: string;
  tenant?: string;
  limit: string;
}

/** --limit as given: an integer from 1 to 500. */
function limitOf(text: string): number {
  const limit = Number(text);
  if (!/^\d+$/.test(text) || limit < 1 || limit > MAX_AUDIT_LIMIT)
    throw new OpsUsageError(`--limit: an integer from 1 to ${MAX_AUDIT_LIMIT}`);
  return limit;
}

/** --since: a date or a date and time (ISO 8601; a date alone is its midnight UTC). */
function sinceOf(text: string): Date {
  const since = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(since.getTime()))
    throw new OpsUsageError('--since: a date such as 2026-11-01 or 2026-11-01T12:00:00Z');
  return since;
}

export function registerAudit(program: Command, io: OpsIO): void {
  opsCommand(program, 'audit', GROUPS.audit)
    .option('--since <date>', 'records from this date or time on (ISO 8601)')
    .option('--action <action>', 'an action, or a prefix ending in a dot such as app.module.')
    .option('--tenant <tenant>', 'records concerning this tenant (name or id)')
    .option('--limit <n>', `at most this many records (1 to ${MAX_AUDIT_LIMIT})`, String(DEFAULT_AUDIT_LIMIT))
    .action(
      runs<AuditOptions>(io, async (session, _args, options) => {
        const limit = limitOf(options.limit);
        const from = options.since === undefined ? undefined : sinceOf(options.since);
        const db = session.database.db;
        const tenant = options.tenant === undefined ? undefined : await tenantArg(db, options.tenant);
        const items = await listInstanceTrail(db, {
          limit,
          ...(from ? { from } : {}),
          ...(options.action ? { action: options.action } : {}),
          ...(tenant ? { tenantId: tenant.id } : {}),
        });
        session.print({ items }, () =>
          table(items, [
            { header: 'ID', value: (e) => e.id },
            { header: 'AT', value: (e) => e.occurredAt },
            { header: 'ACTION', value: (e) => e.action },
            { header: 'ACTOR', value: (e) => `${e.actor.type}:${e.actor.name ?? e.actor.id}` },
            { header: 'RESOURCE', value: (e) => `${e.resource.type}:${e.resource.id}` },
            { header: 'DATA', value: (e) => e.data },
          ]),
        );
      }),
    );
}
