// A file written whole or not at all: written beside its place under a name of this write's own, then
// renamed over it, so a reader (another process included) never sees half of it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';

/**
 * Writes `data` to `file` atomically. A `mode` is the new file's from its first byte (given at creation,
 * kept by the rename); without one the process's default applies.
 */
export async function writeFileAtomically(file: string, data: string | Uint8Array, mode?: number) {
  // Its own name, even for two writes of one file in one process at once (equal modules stored together).
  const partial = `${file}.${process.pid}.${randomUUID()}.part`;
  // `wx`: a new file only, so the mode is never one a leftover of a crashed write already had.
  await fs.writeFile(partial, data, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
  await fs.rename(partial, file);
}
