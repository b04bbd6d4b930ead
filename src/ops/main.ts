// The `ops` command for an operator's terminal: the process's own streams and environment.
import { runOps } from './program.ts';

process.exitCode = await runOps(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stdin: process.stdin,
});
