// The ports an install's writes reach the records other layers keep of it through: the vendor sessions
// its runs wait on (src/vendor-sessions) and its metering rows (src/calls). Both layers stand above
// installs and read installs, so installs never import them: each answers its port
// (vendor-sessions installSessionRecords, calls installMeteringRecords) and the api wires them in, as it
// wires the upgrades' trigger (upgrade/trigger.ts).
import type { Queryable } from '../db/pool.ts';

/** An install's vendor sessions, as its removal reads and fails them (409 install_in_use, force). */
export interface SessionRecords {
  /** How many of the install's pending sessions a run waits on (details.pendingCallbacks). */
  pendingOf(db: Queryable, installId: string): Promise<number>;
  /** The runs waiting on them, the longest waiting first (details.runs). */
  runsWaitingOn(db: Queryable, installId: string): Promise<{ id: string }[]>;
  /** Fails the install's pending sessions with install_removed; answers how many. */
  failPending(db: Queryable, installId: string): Promise<number>;
}

/** An install's metering rows, as its removal and its limits record read and write them. */
export interface MeteringRecords {
  /** Names every metering row of an install that goes as it was last named (in the caller's transaction). */
  nameRows(db: Queryable, installId: string, name: string): Promise<void>;
  /** The currencies the install spent in during the UTC month `now` falls in. */
  monthSpendCurrencies(db: Queryable, tenantId: string, installId: string, now: Date): Promise<string[]>;
}

/** What the api wires in: the records of an install that other layers keep. */
export interface InstallRecords {
  sessions: SessionRecords;
  metering: MeteringRecords;
}
