// Bounds on how many things a module declares, read from the first bytes of each section before any
// entry is parsed and before the engine compiles anything. Compiling costs the calling thread time in
// proportion to some of these (about 0.3 µs a function on this machine, and a JavaScript object per
// import or export wherever the engine lists them): a 7.6 MiB module of 1,000,000 exports stalled the
// runner 3.5 s. Each bound is far above what real toolchains emit for an app (the release apps declare
// at most 186 functions, 26 types, 20 imports and 5 exports; bench/module-compile.ts measures a module
// at every bound). Exception tags need no bound: any tag is refused (bodies.ts). Function bodies' bytes
// and nesting are bounded in bodies.ts. Pure.
import { declaredCount, SECTION, type Section } from './binary.ts';
import { type ModuleRefusal, refuse } from './refusal.ts';

/** Custom sections (names, producers, debugging information...). */
export const MAX_CUSTOM_SECTIONS = 100;
/** Function types. */
export const MAX_TYPES = 10_000;
/** Imports of every kind. The host offers about 80 functions in all. */
export const MAX_IMPORTS = 1_000;
/** Functions the module defines (imported functions are imports), and so their bodies. */
export const MAX_FUNCTIONS = 100_000;
/** Tables the module defines (their entries are bounded in instance-size.ts). */
export const MAX_TABLES = 100;
/** Exports of every kind. An app needs four functions and its memory. */
export const MAX_EXPORTS = 1_000;
/** Element segments (their entries are bounded in instance-size.ts); toolchains write one. */
export const MAX_ELEMENT_SEGMENTS = 1_000;

/** What each section's count is called in a refusal, and its bound. */
const BOUNDS: readonly (readonly [number, string, number])[] = [
  [SECTION.type, 'types', MAX_TYPES],
  [SECTION.import, 'imports', MAX_IMPORTS],
  [SECTION.function, 'functions', MAX_FUNCTIONS],
  [SECTION.table, 'tables', MAX_TABLES],
  [SECTION.export, 'exports', MAX_EXPORTS],
  [SECTION.element, 'element segments', MAX_ELEMENT_SEGMENTS],
  [SECTION.code, 'function bodies', MAX_FUNCTIONS],
];

/** instance_too_large naming the first count past its bound, or null when every count is within. */
export function checkCounts(bytes: Uint8Array, all: readonly Section[]): ModuleRefusal | null {
  for (const [id, what, max] of BOUNDS) {
    const count = declaredCount(
      bytes,
      all.find((section) => section.id === id),
    );
    if (count > max) return overBound(count, what, max);
  }
  return null;
}

export const overBound = (count: number | string, what: string, max: number): ModuleRefusal =>
  refuse('instance_too_large', `module has ${count} ${what}; at most ${max} are accepted`);
