// Types of scripts/cli-build.js (plain JavaScript: the bins import it before any TypeScript can load).

/** A repository to build the commands of: its root and each command's entry module (relative to it). */
export interface CliProject {
  root: string;
  entries: Record<string, string>;
}

/** Each command's entry module in this repository. */
export const ENTRIES: Record<'platform' | 'ops' | 'app', string>;

/** `[size, mtimeMs]` of each input, or null for one that is absent. */
export type Stamps = Record<string, [number, number] | null>;

/** The file URL of a command's entry in a fresh build, building first when the recorded one is stale. */
export function cliEntry(
  name: string,
  stderr?: { isTTY?: boolean; write(text: string): unknown },
  project?: CliProject,
): Promise<string>;

/** The current build's folder if none of its inputs changed since; else null. */
export function freshBuild(project?: CliProject): string | null;

/** Whether two records of the same inputs agree. */
export function sameStamps(recorded: Stamps, now: Stamps): boolean;

/** Builds the commands now; answers the new build's folder. */
export function build(project?: CliProject): Promise<string>;
