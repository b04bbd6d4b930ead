// npm run test:profile [-- vitest filters…]: runs the suite (or the files named) and prints where its
// minutes go: every file's wall time, and for the 30 slowest what they spent starting servers and
// processes, creating their database, compiling modules, sleeping in the test's own timers, and the CPU
// of the test process, of its children and of the run's PostgreSQL. Written as well to test-profile.md, with every file's figures in test-profile.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FILE_TIMES } from '../test/support/longest-first.ts';
import type { FileTimes } from '../test/support/slowest-files-reporter.ts';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'test-profile.json');
const started = performance.now();
const vitest = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TEST_PROFILE_OUT: out } },
);
const wallMs = performance.now() - started;
if (!fs.existsSync(out)) {
  console.error('vitest wrote no profile: see its output above');
  process.exit(vitest.status ?? 1);
}
const files = JSON.parse(fs.readFileSync(out, 'utf8')) as FileTimes[];
const postgresCpuMs = fs.existsSync(`${out}.postgres`)
  ? Number(fs.readFileSync(`${out}.postgres`, 'utf8'))
  : 0;
fs.rmSync(`${out}.postgres`, { force: true });

const s = (ms: number) => (ms / 1000).toFixed(1);
const sum = (pick: (f: FileTimes) => number, of = files) => of.reduce((total, f) => total + pick(f), 0);
const cpu = sum((f) => f.profile?.cpuMs ?? 0);
const childCpu = sum((f) => f.profile?.childCpuMs ?? 0);
const top = files.slice(0, 30);
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

const report = [
  `# Test profile, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${os.cpus().length} cores, load ${os.loadavg()[0]?.toFixed(1)} at the end)`,
  '',
  `vitest ${s(wallMs)} s of wall time for ${files.length} files and ${sum((f) => f.tests)} tests (exit ${vitest.status}); the files' own times add up to ${s(sum((f) => f.wallMs))} s, ${s(sum((f) => f.collectMs))} s of it importing.`,
  `CPU: ${s(cpu)} s in the test processes (their in-process api, worker and runner included), ${s(childCpu)} s in the children they waited for, ${s(postgresCpuMs)} s in the run's PostgreSQL: ${s(cpu + childCpu + postgresCpuMs)} s in all, ${s((cpu + childCpu + postgresCpuMs) / os.cpus().length)} s of wall time at best on ${os.cpus().length} cores.`,
  '',
  '## The 30 slowest files',
  '',
  'Seconds. Spans are wall time and may overlap one another and the CPU columns: *starting* is servers and processes until ready (in the test process or as children, the database included), *database* the file’s copy of the template, *compiling* AssemblyScript fixtures, *sleeps* the test’s own timers of 100 ms or more that ran out; *idle* is what the test process spent neither on its CPU nor in those spans (waiting on children, PostgreSQL, sockets and product timers).',
  '',
  row([
    'file',
    'wall',
    'import',
    'starting',
    'database',
    'compiling',
    'sleeps',
    'CPU',
    'CPU children',
    'idle',
  ]),
  row(Array(10).fill('---')),
  ...top.map((f) => {
    const p = f.profile;
    const spans = p ? p.spans.starting + p.spans.compiling + p.testSleepMs : 0;
    return row([
      f.file,
      s(f.wallMs),
      s(f.collectMs),
      ...(p
        ? [
            s(p.spans.starting),
            s(p.spans.database),
            s(p.spans.compiling),
            s(p.testSleepMs),
            s(p.cpuMs),
            s(p.childCpuMs),
            s(Math.max(0, f.wallMs - p.cpuMs - spans)),
          ]
        : Array(7).fill('–')),
    ]);
  }),
  '',
  '## Every file',
  '',
  row(['file', 'wall', 'tests', 'worker']),
  row(['---', '---', '---', '---']),
  ...files.map((f) => row([f.file, s(f.wallMs), f.tests, f.worker])),
  '',
].join('\n');
fs.writeFileSync(path.join(root, 'test-profile.md'), report);
// The order the next runs start files in (test/support/longest-first.ts): commit it when it changed much.
const measured = Object.fromEntries(
  [...files]
    .sort((a, b) => a.file.localeCompare(b.file))
    .map((f) => [f.file, Math.round(f.wallMs / 100) * 100]),
);
if (vitest.status === 0) fs.writeFileSync(FILE_TIMES, `${JSON.stringify(measured, null, 1)}\n`);
console.log(`\n${report.split('\n## Every file')[0]}\nEvery file's time: test-profile.md`);
process.exit(vitest.status ?? 1);
