// Front doors: a subsystem listed here is used from outside its folder only through its index.ts, so
// its inside (the runner's threads, host functions, egress…) can change without breaking the layers
// and the authors' test kit that use it. Tests are exempt: they may test a subsystem's inside.
import { describe, expect, it } from 'vitest';
import { imports, type Source, sources } from './sources.ts';

/** Subsystems with a front door: files outside `folder` may import only `door` of it. One line each. */
const FRONT_DOORS = [
  { folder: 'src/runner', door: 'src/runner/index.ts' },
  { folder: 'src/module', door: 'src/module/index.ts' },
  { folder: 'src/installs', door: 'src/installs/index.ts' },
  { folder: 'src/collections', door: 'src/collections/index.ts' },
  { folder: 'src/documents', door: 'src/documents/index.ts' },
  { folder: 'src/vendor-sessions', door: 'src/vendor-sessions/index.ts' },
  { folder: 'src/outbound-webhooks', door: 'src/outbound-webhooks/index.ts' },
  { folder: 'src/telemetry', door: 'src/telemetry/index.ts' },
  { folder: 'src/provenance', door: 'src/provenance/index.ts' },
  { folder: 'src/calls', door: 'src/calls/index.ts' },
  { folder: 'src/runs', door: 'src/runs/index.ts' },
  { folder: 'src/notifications', door: 'src/notifications/index.ts' },
  { folder: 'src/attention', door: 'src/attention/index.ts' },
];

/**
 * Layers a subsystem must never import, even through its door (files of `above` itself, and the door that
 * hands them to other layers, aside): the layer built on top of it reaches it through a port it answers
 * (installs ask the upgrade sweeps through UpgradeTrigger).
 */
const NEVER: readonly { folder: string; above: string }[] = [
  { folder: 'src/installs', above: 'src/installs/upgrade/sweeps' },
];

/**
 * Imports that pass a door by because through it they would close an import circle (the subsystem
 * reaches the importer); each says so where it imports. `file` imports `target` directly.
 */
const PAST_THE_DOOR: readonly { file: string; target: string }[] = [
  // Drizzle's schema gathers every domain's tables; installs and collections take the pool's types from it.
  { file: 'src/db/schema.ts', target: 'src/installs/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/collections/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/documents/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/vendor-sessions/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/outbound-webhooks/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/calls/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/runs/tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/runs/definitions/approvals-tables.ts' },
  { file: 'src/db/schema.ts', target: 'src/notifications/tables.ts' },
  // The runs' model takes a type of the pure retry rules: the door reaches the tables, whose schema reads the model.
  { file: 'src/runs/model.ts', target: 'src/calls/retry-rules.ts' },
  // Calls' tables take the budget lists' types: the schema gathers both, and installs take its pool's types.
  { file: 'src/calls/tables.ts', target: 'src/installs/tables.ts' },
  // Every command reads the settings and opens a pool: through the doors, each would load Sigstore's code
  // and the telemetry SDK with its exporters (scripts/cli-build.js: a command loads only what it uses).
  { file: 'src/config/provenance.ts', target: 'src/provenance/policy-rules.ts' },
  { file: 'src/db/pool.ts', target: 'src/telemetry/spans.ts' },
  { file: 'src/ops/tenants.ts', target: 'src/calls/month-report.ts' },
  { file: 'src/ops/tenants.ts', target: 'src/calls/tenant-quotas.ts' },
  { file: 'src/ops/tenants-usage.ts', target: 'src/calls/month-report.ts' },
  { file: 'src/ops/apps-list.ts', target: 'src/installs/running-store.ts' },
  // The benches seed definitions and runs straight into their tables, sweep and read windows as the worker does.
  { file: 'bench/runs.ts', target: 'src/runs/tables.ts' },
  { file: 'bench/scale-out.ts', target: 'src/runs/tables.ts' },
  { file: 'bench/webhooks.ts', target: 'src/runs/sweep.ts' },
  { file: 'bench/health.ts', target: 'src/calls/health.ts' },
];

/** The code that must come in through the front doors (test files under these are skipped too). */
const READ = ['src', 'packages/app-testing/src', 'bench', 'scripts', 'bin'];

const inside = (file: string, folder: string) => file.startsWith(`${folder}/`);
const isDoor = (file: string) => FRONT_DOORS.some(({ door }) => door === file);

/** `file: 'specifier'` for every import that passes a front door by. */
function offences(files: Source[]): string[] {
  return files.flatMap((source) =>
    imports(source).flatMap(({ specifier, target }) =>
      FRONT_DOORS.filter(
        ({ folder, door }) =>
          inside(target, folder) &&
          !inside(source.file, folder) &&
          target !== door &&
          !PAST_THE_DOOR.some((past) => past.file === source.file && past.target === target),
      ).map(({ door }) => `${source.file}: '${specifier}' (use ${door})`),
    ),
  );
}

describe('front doors', () => {
  const files = sources(READ);

  it('no file outside a subsystem imports its inside', () => {
    expect(offences(files)).toEqual([]);
  });

  it('no subsystem imports a layer built on top of it', () => {
    const upward = files.flatMap((source) =>
      imports(source)
        .filter(({ target }) =>
          NEVER.some(
            ({ folder, above }) =>
              inside(source.file, folder) &&
              !inside(source.file, above) &&
              !isDoor(source.file) &&
              inside(target, above),
          ),
        )
        .map(({ specifier }) => `${source.file}: '${specifier}'`),
    );
    expect(upward).toEqual([]);
  });

  it('each front door is used, so the scan sees the imports it checks', () => {
    const targets = new Set(files.flatMap((source) => imports(source).map(({ target }) => target)));
    for (const { door } of FRONT_DOORS) expect(targets, door).toContain(door);
  });

  it('names an import that passes a front door by', () => {
    const text = [
      "import { a } from '../runner/index.ts';",
      "import type { B } from '../runner/host/call-state.ts';",
      "export { c } from '../module/wasm.ts';",
      "const d = await import('../runner/threads/sandbox-pool.ts');",
      "import '../module/manifest.ts';",
    ].join('\n');
    expect(offences([{ file: 'src/calls/example.ts', text }])).toEqual([
      "src/calls/example.ts: '../runner/host/call-state.ts' (use src/runner/index.ts)",
      "src/calls/example.ts: '../module/wasm.ts' (use src/module/index.ts)",
      "src/calls/example.ts: '../runner/threads/sandbox-pool.ts' (use src/runner/index.ts)",
      "src/calls/example.ts: '../module/manifest.ts' (use src/module/index.ts)",
    ]);
    expect(
      offences([{ file: 'src/runner/service.ts', text: "import { e } from './host/http.ts';" }]),
    ).toEqual([]);
  });
});
