// The shape every operator command shares: --json on every one, --by on every change, and an action that
// runs inside a session on the deployment's database.
import { type Command, Option } from 'commander';
import { isUuid } from '../catalogue/operator-rules.ts';
import type { Queryable } from '../db/pool.ts';
import { notFound } from '../http/errors.ts';
import { findTenantById, findTenantByName, type Tenant } from '../tenants/service.ts';
import { type OpsIO, type OpsSession, operatorName, withSession } from './runtime.ts';

/** A subcommand with --json. */
export const opsCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  parent.command(nameAndArgs).description(description).option('--json', 'print JSON');

/** A subcommand that changes something: --json and the required --by. */
export const changeCommand = (parent: Command, nameAndArgs: string, description: string): Command =>
  opsCommand(parent, nameAndArgs, description).addOption(
    new Option(
      '--by <name>',
      'who makes the change (1 to 100 characters, recorded as given)',
    ).makeOptionMandatory(),
  );

/**
 * The action of a subcommand: `handler` gets the session, the positional arguments and the options
 * (--by checked), inside a session on the database.
 */
export function runs<Options extends { json?: boolean; by?: string }>(
  io: OpsIO,
  handler: (session: OpsSession, args: string[], options: Options) => Promise<void>,
) {
  return async (...received: unknown[]) => {
    const command = received.at(-1) as Command;
    const options = command.opts<Options>();
    if (options.by !== undefined) operatorName(options.by);
    // An optional argument left out comes as undefined: left out here too (optional ones come last).
    const args = received
      .slice(0, -2)
      .filter((arg) => arg !== undefined)
      .map(String);
    await withSession(io, options, (session) => handler(session, args, options));
  };
}

/** A tenant named on the command line by its name or its id; 404 not_found when none. */
export async function tenantArg(db: Queryable, text: string): Promise<Tenant> {
  const tenant = isUuid(text)
    ? await findTenantById(db, text.toLowerCase())
    : await findTenantByName(db, text);
  if (!tenant) throw notFound(`no tenant is named ${text}`);
  return tenant;
}
