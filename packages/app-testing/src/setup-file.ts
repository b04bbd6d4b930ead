// Where `app test` finds an app's conformance setup (samples, config, secrets, hosts, ...):
//   <dir>/test/conformance.ts   a module whose default export is the setup, or a function (maybe async)
//                               answering it; it may start doubles and give `close` to stop them;
//   <dir>/conformance.json      the setup as data (webhooks as templates).
// The .ts file wins when both exist; `--samples <file>` names one explicitly (.json, .ts, .js, .mjs).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import type { ConformanceOptions } from './conformance.ts';

export interface ConformanceSetup extends ConformanceOptions {
  /** Called once the check is over (stops the doubles the setup started). */
  close?: () => Promise<void> | void;
}

export const SETUP_FILES = ['test/conformance.ts', 'conformance.json'] as const;

/** The setup file of an app directory, or null. */
export function findConformanceSetup(dir: string): string | null {
  for (const name of SETUP_FILES) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return null;
}

function asSetup(value: unknown, file: string): ConformanceSetup {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${file}: the conformance setup must be an object ({ samples, config, secrets, hosts })`);
  }
  const setup = value as ConformanceSetup;
  if (setup.samples !== undefined && !Array.isArray(setup.samples)) {
    throw new Error(`${file}: samples must be an array of { action, input, webhook? }`);
  }
  for (const [i, sample] of (setup.samples ?? []).entries()) {
    if (sample === null || typeof sample !== 'object' || typeof sample.action !== 'string') {
      throw new Error(`${file}: samples[${i}] needs an action name`);
    }
  }
  return setup;
}

/** Reads a setup file: JSON as data, a script module through its default export. */
export async function loadConformanceSetup(file: string): Promise<ConformanceSetup> {
  if (file.endsWith('.json')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (error) {
      throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    return asSetup(parsed, file);
  }
  // Through tsx, so that a TypeScript setup loads whatever module type its folder declares (an app
  // folder without a package.json makes it CommonJS, whose default export then arrives wrapped).
  const module = (await tsImport(pathToFileURL(path.resolve(file)).href, import.meta.url)) as {
    default?: unknown;
  };
  let exported = module.default;
  if (exported !== null && typeof exported === 'object' && Object.hasOwn(exported, 'default')) {
    exported = (exported as { default: unknown }).default;
  }
  const value = typeof exported === 'function' ? await (exported as () => unknown)() : exported;
  return asSetup(value, file);
}
