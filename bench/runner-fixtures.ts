// Builds the runner benchmark's modules in a child process: the AssemblyScript compiler stays resident
// (over a GiB) in a process that has loaded it, even after the thread that loaded it ended, and the
// benchmark reports the memory of its own process as the runner's.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface FixtureBuild {
  name: string;
  replacements?: Record<string, string>;
}

const BUILDS = 'BENCH_RUNNER_FIXTURE_BUILDS';
/** Precedes the answer on the child's output (the compiler may write there too). */
const MARK = '\n--- built modules ---\n';

/** The modules, in order, built (or read from the build cache) by a child process. */
export async function buildInChild(builds: FixtureBuild[]): Promise<Uint8Array[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url)],
    { env: { ...process.env, [BUILDS]: JSON.stringify(builds) }, maxBuffer: 256 * 1024 * 1024 },
  );
  const answer = stdout.slice(stdout.lastIndexOf(MARK) + MARK.length);
  return (JSON.parse(answer) as string[]).map((base64) => new Uint8Array(Buffer.from(base64, 'base64')));
}

const asked = process.env[BUILDS];
if (asked) {
  const { buildFixture } = await import('../test/support/assemblyscript.ts');
  const built: string[] = [];
  for (const build of JSON.parse(asked) as FixtureBuild[])
    built.push(Buffer.from(await buildFixture(build.name, build.replacements)).toString('base64'));
  process.stdout.write(MARK + JSON.stringify(built));
}
