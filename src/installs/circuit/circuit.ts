// Circuit settings of an install (docs/installs.md "Circuit settings"): the
// install's own failure threshold and open time, each null for the deployment's (APP_CIRCUIT_*), and the
// reset. Calls move the circuit itself (circuit-store.ts); a settings change applies on the next call of
// every process, since each attempt reads the install row.
import { eq } from 'drizzle-orm';
import { audit, type InstallContext, nextUpdatedAt, readView, requireInstall } from '../service.ts';
import { appInstalls } from '../tables.ts';
import type { InstallRow, InstallView } from '../view.ts';
import { closeCircuit } from './circuit-store.ts';

/** The settings' allowed ranges; the routes' schema enforces them. */
export const CIRCUIT_FAILURE_THRESHOLD = { min: 1, max: 100 } as const;
export const CIRCUIT_OPEN_SECONDS = { min: 5, max: 3600 } as const;

export interface CircuitSettings {
  failureThreshold: number | null;
  openSeconds: number | null;
}

const settingsOf = (row: InstallRow): CircuitSettings => ({
  failureThreshold: row.circuitFailureThreshold,
  openSeconds: row.circuitOpenSeconds,
});

/** PUT /app-installs/:install/circuit: both fields given; null takes the deployment's value. */
export async function configureCircuit(
  ctx: InstallContext,
  name: string,
  settings: CircuitSettings,
): Promise<CircuitSettings> {
  return ctx.database.db.transaction(async (tx) => {
    const current = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const [row] = await tx
      .update(appInstalls)
      .set({
        circuitFailureThreshold: settings.failureThreshold,
        circuitOpenSeconds: settings.openSeconds,
        updatedAt: nextUpdatedAt(),
      })
      .where(eq(appInstalls.id, current.id))
      .returning();
    const install = row as InstallRow;
    await audit(tx, ctx, 'app.circuit.configured', install, {
      before: settingsOf(current),
      after: settingsOf(install),
      defaults: { ...ctx.settings.circuitDefaults },
    });
    return settingsOf(install);
  });
}

/**
 * POST /app-installs/:install/circuit/reset: closes the circuit and clears its count, audited with the
 * state it left (a reset of a closed circuit is audited too: someone asked for it).
 */
export async function resetCircuit(ctx: InstallContext, name: string): Promise<InstallView['circuit']> {
  return ctx.database.db.transaction(async (tx) => {
    const install = await requireInstall(tx, ctx.principal.tenantId, name, true);
    const before = (await readView(tx, ctx, install)).circuit;
    await closeCircuit(tx, install.id);
    await audit(tx, ctx, 'app.circuit.reset', install, {
      previousState: before.state,
      previousFailures: before.failures,
    });
    return (await readView(tx, ctx, install)).circuit;
  });
}
