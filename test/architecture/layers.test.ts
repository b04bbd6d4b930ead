// Layers: every folder of src (and each file at its root) stands on a floor, and an import runs down the
// floors or stays on its own, never up. Where a lower layer needs something of a higher one, it declares
// a port and the higher one gives it (installs reach upgrades through UpgradeTrigger and an install's
// sessions and metering through InstallRecords, the catalogue's operator changes the installs running a
// version through RunningInstalls, the resumer runs' continuations through ResumerDeps), or the code moves
// to the layer it belongs to (the retention sweep stands above the rows it sweeps). Tests are exempt.
import { describe, expect, it } from 'vitest';
import { imports, type Source, sources } from './sources.ts';

/**
 * The floors, from the ground up: a folder or root file of src on each line of a floor. A folder may
 * import its own floor's and lower floors' files, never a higher floor's. A new folder takes a floor here.
 */
const FLOORS: readonly (readonly string[])[] = [
  [
    'net',
    'unsafe-characters.ts',
    'version.ts',
    'error-text.ts',
    'module',
    'crypto',
    'atomic-file.ts',
    'uuid.ts',
    'provenance',
  ],
  ['config', 'config.ts', 'logging.ts'],
  ['storage', 'telemetry', 'auth', 'console', 'types'],
  ['db'],
  ['worker', 'http'],
  ['runner', 'documents', 'audit', 'notifications', 'approvals'],
  ['tenants'],
  ['catalogue'],
  ['installs'],
  ['calls', 'upgrades'],
  ['vendor-sessions'],
  ['runs'],
  ['collections', 'outbound-webhooks'],
  ['attention', 'retention'],
  ['api'],
  ['cli'],
  ['app-cli', 'main.ts'],
  ['ops'],
];

/**
 * Imports allowed to run up: Drizzle's schema (src/db/schema.ts) gathers every domain's tables for
 * drizzle-kit and the pool's types, and nothing else does. An import that must stay a while before it
 * becomes a port or moves is listed here with why; the last test fails once one is gone, so the list
 * only shrinks.
 */
const UPWARD: readonly { file: string; target: string; why: string }[] = [];

/** The folder or root file of src a path stands in: `src/runs/waits.ts` → `runs`, `src/uuid.ts` → `uuid.ts`. */
const placeOf = (file: string) => file.split('/')[1] as string;

/** The floor of a place; undefined: it has none yet. */
function floorOf(place: string): number | undefined {
  const floor = FLOORS.findIndex((places) => places.includes(place));
  return floor === -1 ? undefined : floor;
}

/** Every relative import that runs up a floor, as `file -> target`. */
function upward(files: Source[]): { file: string; target: string }[] {
  return files.flatMap((source) =>
    imports(source)
      .map(({ target }) => target)
      .filter((target) => target.startsWith('src/'))
      .filter((target) => (floorOf(placeOf(target)) ?? 0) > (floorOf(placeOf(source.file)) ?? 0))
      .map((target) => ({ file: source.file, target })),
  );
}

const allowed = ({ file, target }: { file: string; target: string }) =>
  (file === 'src/db/schema.ts' && target.endsWith('tables.ts')) ||
  UPWARD.some((up) => up.file === file && up.target === target);

describe('layers', () => {
  const files = sources(['src']);

  it('every folder of src stands on a floor', () => {
    const places = new Set(files.map((source) => placeOf(source.file)));
    expect([...places].filter((place) => floorOf(place) === undefined)).toEqual([]);
  });

  it('no import runs up a floor but Drizzle’s schema and the ones listed', () => {
    expect(
      upward(files)
        .filter((up) => !allowed(up))
        .map(({ file, target }) => `${file} -> ${target}`),
    ).toEqual([]);
  });

  it('each listed import still runs up (a port made for one strikes it from the list)', () => {
    const found = upward(files);
    for (const up of UPWARD) {
      expect(
        found.some(({ file, target }) => file === up.file && target === up.target),
        `${up.file} -> ${up.target}`,
      ).toBe(true);
    }
  });

  it('names an import that runs up', () => {
    const text = [
      "import { a } from '../api/internal.ts';",
      "import type { B } from '../db/pool.ts';",
      "export { c } from '../runs/index.ts';",
    ].join('\n');
    expect(upward([{ file: 'src/documents/store.ts', text }])).toEqual([
      { file: 'src/documents/store.ts', target: 'src/api/internal.ts' },
      { file: 'src/documents/store.ts', target: 'src/runs/index.ts' },
    ]);
  });
});
