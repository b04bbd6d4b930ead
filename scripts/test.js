// `npm test [-- vitest arguments…]`: the type check and the suite at once. The suite keeps both cores busy
// most of the time but not all of it (processes starting, PostgreSQL waits); the type check runs at the
// lowest priority beside it, on what the suite leaves, instead of 20 s on its own before it. Its report
// is printed once the suite has ended, so the two never interleave; either failing fails the command.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const npm = process.env.npm_execpath;

/** Runs a command to its end; its output kept when `quiet`. */
function run(command, args, { quiet = false } = {}) {
  const child = spawn(command, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

// npm's own script runner, so the type check is exactly `npm run typecheck` (TypeScript 7's native tsc,
// package typescript-native; TypeScript 5.9 stays for openapi-typescript, which builds on its JavaScript API).
const typecheck = npm
  ? run('nice', ['-n', '19', process.execPath, npm, 'run', '--silent', 'typecheck'], { quiet: true })
  : run('nice', ['-n', '19', 'npm', 'run', '--silent', 'typecheck'], { quiet: true });
const suite = run(process.execPath, [
  path.join(root, 'node_modules/vitest/vitest.mjs'),
  'run',
  ...process.argv.slice(2),
]);

const [checked, tested] = await Promise.all([typecheck, suite]);
process.stdout.write(checked.output);
console.info(checked.code === 0 ? '\n Type check passed' : '\n Type check FAILED (above)');
process.exit(tested.code || checked.code);
