// The worker of bench/webhooks.ts, in a process of its own: `platform start --role worker` exactly as a
// deployment runs it (src/cli/start.ts: the run workflows on DBOS, the resumer, the run and retention
// sweeps), so its resident memory, its CPU, its statements and its restart are the worker's alone. It
// counts every SQL statement it sends (bench/usage.ts) and talks to the bench over IPC: `ready` once
// started, then a WorkerUsage for each question. SIGTERM stops it as it stops a deployment's worker.
import { start } from '../src/cli/start.ts';
import { loadConfig } from '../src/config.ts';
import { countStatements, statementsSent, statementTally, tallyStatements } from './usage.ts';
import type { WorkerMessage, WorkerQuestion } from './webhooks-support.ts';

countStatements('', false);
const send = (message: WorkerMessage) => process.send?.(message);

process.on('message', (question: WorkerQuestion) => {
  const cpu = process.cpuUsage();
  const tally = question.tally === 'stop' ? [...statementTally] : [];
  if (question.tally === 'start') statementTally.clear();
  if (question.tally !== 'keep') tallyStatements(question.tally === 'start');
  send({
    kind: 'usage',
    usage: {
      statements: statementsSent(),
      cpuMs: (cpu.user + cpu.system) / 1000,
      rssBytes: process.memoryUsage.rss(),
      tally,
    },
  });
});

await start(loadConfig(), 'worker');
send({ kind: 'ready' });
