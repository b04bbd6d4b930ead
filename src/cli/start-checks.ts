// What `platform start` refuses before it loads the platform's code: production settings missing, or a port
// another program holds. Apart from start.ts so that a refused start answers in the time commander and the
// settings take to load, not the whole platform's (main.ts runs it before importing start.ts).
import { type Config, missingProductionSettings, type Role } from '../config.ts';
import { DataDirInUse, lockHolder } from '../db/data-dir-lock.ts';
import { listenersOf, takenListeners, takenPortsMessage } from './ports.ts';

export async function refuseToStart(config: Config, role: Role): Promise<void> {
  const missing = missingProductionSettings(config, role);
  if (missing.length > 0) throw new Error(`settings required in production: ${missing.join(', ')}`);
  await refuseTakenPorts(config, role);
}

/**
 * Every port of the role that another program holds, named in one line before anything starts. A second
 * start in the same DATA_DIR is told that instead: its ports are taken by the platform already running there.
 */
async function refuseTakenPorts(config: Config, role: Role): Promise<void> {
  const taken = await takenListeners(listenersOf(config, role));
  if (taken.length === 0) return;
  const holder = config.mode === 'embedded' ? await lockHolder(config.dataDir) : null;
  if (holder !== null) throw new DataDirInUse(config.dataDir, holder);
  throw new Error(takenPortsMessage(taken));
}
