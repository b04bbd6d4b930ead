// The circuit in PostgreSQL (docs/calls.md "The circuit"): read for the view
// and the health report, the gate of an attempt (step 2), the half-open trial's claim (step 4), and the
// move after an attempt (step 7). Every time is the database's: reads select now() beside the row and
// writes stamp now(), so api and worker processes on clocks that disagree still agree on the circuit.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Actor, recordAudit } from '../../audit/trail.ts';
import type { Database, Queryable } from '../../db/pool.ts';
import { ApiError } from '../../http/errors.ts';
import { notify } from '../../notifications/index.ts';
import { appInstallCircuits, type appInstalls } from '../tables.ts';
import {
  type CircuitCount,
  type CircuitGate,
  type CircuitRow,
  type CircuitSettings,
  gateOf,
  nextCircuit,
} from './circuit-rules.ts';

type InstallRow = typeof appInstalls.$inferSelect;

const columns = {
  state: appInstallCircuits.state,
  failures: appInstallCircuits.failures,
  since: appInstallCircuits.since,
  openedAt: appInstallCircuits.openedAt,
  trialId: appInstallCircuits.trialId,
  trialClaimedAt: appInstallCircuits.trialClaimedAt,
};

/** now() as a selected column: the database's clock, read with the row it judges. */
export const dbNow = sql<Date>`now()`.mapWith((value: string | Date) => new Date(value));

/** An install's circuit row (null: none yet) read together with the database's now. */
export interface CircuitRead {
  row: CircuitRow | null;
  now: Date;
}

/** The database's clock, for readers whose installs have no circuit row. */
export async function readDatabaseNow(db: Queryable): Promise<Date> {
  const { rows } = await db.execute<{ now: Date }>(sql`select now() as now`);
  return new Date(rows[0]?.now as Date);
}

/** The circuits of these installs (absent: no row) and the database's now, for views and reports. */
export async function readCircuits(db: Queryable, installIds: readonly string[]) {
  const byInstall = new Map<string, CircuitRow>();
  if (installIds.length === 0) return { byInstall, now: new Date() };
  const rows = await db
    .select({ installId: appInstallCircuits.installId, ...columns })
    .from(appInstallCircuits)
    .where(inArray(appInstallCircuits.installId, [...installIds]));
  for (const { installId, ...row } of rows) byInstall.set(installId, row);
  return { byInstall, now: rows.length > 0 ? await readDatabaseNow(db) : new Date() };
}

/**
 * Step 2: what the circuit says of a new attempt of this install, in the database's time — from a read
 * the caller already made with the install (resolveCall), else read now.
 */
export async function readGate(
  db: Queryable,
  installId: string,
  settings: CircuitSettings,
  read?: CircuitRead,
): Promise<CircuitGate> {
  if (read) return gateOf(read.row, settings, read.now);
  const [row] = await db
    .select({ ...columns, now: dbNow })
    .from(appInstallCircuits)
    .where(eq(appInstallCircuits.installId, installId));
  if (!row) return { kind: 'closed', failures: 0 };
  const { now, ...circuit } = row;
  return gateOf(circuit, settings, now);
}

/** 503 app_circuit_open: recorded nowhere, never retried, and the fallback's cue. */
export function circuitOpen(install: Pick<InstallRow, 'name'>, gate: { state: string; until?: Date }) {
  return new ApiError('app_circuit_open', `the circuit of install ${install.name} is ${gate.state}`, {
    install: install.name,
    state: gate.state,
    ...(gate.until ? { retryAt: gate.until.toISOString() } : {}),
  });
}

/**
 * Step 4: claims the half-open trial, or answers null when another attempt has it. One conditional UPDATE:
 * concurrent claimers queue on the row lock and re-check the condition against the row the winner wrote,
 * so across every process exactly one claim takes (test/calls/circuit-trial.test.ts proves it).
 */
export async function claimTrial(
  db: Queryable,
  installId: string,
  settings: CircuitSettings,
  trialId: string,
): Promise<boolean> {
  const openTime = sql`make_interval(secs => ${settings.openSeconds})`;
  const claimed = await db
    .update(appInstallCircuits)
    .set({
      state: 'half_open',
      trialId,
      trialClaimedAt: sql`now()`,
      since: sql`case when ${appInstallCircuits.state} = 'open' then now() else ${appInstallCircuits.since} end`,
    })
    .where(
      and(
        eq(appInstallCircuits.installId, installId),
        // Parenthesised whole: and() does not wrap its parts, and a bare `or` would reach other installs.
        sql`((${appInstallCircuits.state} = 'open' and ${appInstallCircuits.openedAt} + ${openTime} <= now())
          or (${appInstallCircuits.state} = 'half_open'
            and (${appInstallCircuits.trialClaimedAt} is null or ${appInstallCircuits.trialClaimedAt} + ${openTime} <= now())))`,
      ),
    )
    .returning({ installId: appInstallCircuits.installId });
  return claimed.length > 0;
}

/** Who the trail names for the circuit's own moves. */
const CIRCUIT_ACTOR: Actor = { type: 'system', id: 'circuit', name: 'Circuit' };

export interface CircuitSubject {
  install: Pick<InstallRow, 'id' | 'tenantId' | 'name' | 'appName'>;
  settings: CircuitSettings;
}

/**
 * Step 7: moves the circuit after an attempt that counted `count` (with the trial it claimed, if any).
 * `gate` is what step 2 read: a success on a closed circuit with no count writes nothing and opens no
 * transaction. Otherwise the row is locked, the pure rule computes the next one at the database's now,
 * and it is written with its announcement (audit; on opening also the app_degraded notification) in one
 * transaction.
 */
export async function moveCircuit(
  database: Database,
  subject: CircuitSubject,
  count: CircuitCount,
  trialId: string | null,
  gate: CircuitGate,
): Promise<void> {
  if (
    trialId === null &&
    count !== 'outage' &&
    !(count === 'success' && gate.kind === 'closed' && gate.failures > 0)
  ) {
    return;
  }
  const { install, settings } = subject;
  await database.db.transaction(async (tx) => {
    if (count === 'outage') {
      await tx
        .insert(appInstallCircuits)
        .values({ installId: install.id, tenantId: install.tenantId })
        .onConflictDoNothing();
    }
    const [locked] = await tx
      .select({ ...columns, now: dbNow })
      .from(appInstallCircuits)
      .where(eq(appInstallCircuits.installId, install.id))
      .for('update');
    if (!locked) return;
    const { now, ...row } = locked;
    const move = nextCircuit(row, count, trialId, settings, now);
    if (!move.write) return;
    await tx.update(appInstallCircuits).set(move.row).where(eq(appInstallCircuits.installId, install.id));
    if (move.announce) await announce(tx, subject, move.announce, move.row.failures);
  });
}

async function announce(
  tx: Queryable,
  { install, settings }: CircuitSubject,
  announced: 'opened' | 'closed',
  failures: number,
) {
  const resource = { type: 'app_install', id: install.id };
  const data =
    announced === 'opened'
      ? { install: install.name, installId: install.id, app: install.appName, failures, ...settings }
      : { install: install.name, installId: install.id, app: install.appName };
  await recordAudit(tx, {
    tenantId: install.tenantId,
    action: `app.circuit.${announced}`,
    actor: CIRCUIT_ACTOR,
    resource,
    data,
  });
  if (announced === 'opened') {
    await notify(tx, {
      tenantId: install.tenantId,
      kind: 'app_degraded',
      audiencePermission: 'apps:write',
      resource,
      data,
    });
  }
}

/**
 * POST .../circuit/reset: closes the circuit and clears its count. `since` moves only when the state
 * does; a closed circuit with no count (or no row) is left as it is.
 */
export async function closeCircuit(tx: Queryable, installId: string): Promise<void> {
  await tx
    .update(appInstallCircuits)
    .set({
      state: 'closed',
      failures: 0,
      openedAt: null,
      trialId: null,
      trialClaimedAt: null,
      since: sql`case when ${appInstallCircuits.state} = 'closed' then ${appInstallCircuits.since} else now() end`,
    })
    .where(
      and(
        eq(appInstallCircuits.installId, installId),
        sql`(${appInstallCircuits.state} <> 'closed' or ${appInstallCircuits.failures} > 0)`,
      ),
    );
}
