// Ports for the tests' servers and platforms. The platform's own choice (listen on port 0, close, use the
// number) takes a port from the ephemeral range, where any outgoing connection of any file may take it
// back before the server binds it (`EADDRINUSE` in a set-up now and then). Tests take theirs below that
// range instead (Linux's starts at 32768), from a block of their vitest worker's own, so two files running
// at once never draw the same number; each is still checked free before it is answered.
import net from 'node:net';

const FIRST = 10_000;
const BLOCK = 2_000;
/** Vitest numbers its workers from 1; a process outside vitest (a bench, a script) takes block 0. */
const worker = Number(process.env.VITEST_POOL_ID ?? 0);
const start = FIRST + (worker % 11) * BLOCK;
/**
 * Where this file starts in its block (files of one worker run one after another, each from afresh).
 * Even offsets only: the platform also listens on the port after some it is given (METRICS_PORT + 1).
 */
let next = 2 * Math.floor((Math.random() * BLOCK) / 2);

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port of this worker's block that nothing listens on now. */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < BLOCK / 2; tried += 1) {
    const port = start + (next % BLOCK);
    next += 2;
    if (await listens(port)) return port;
  }
  throw new Error(`no free port in ${start}-${start + BLOCK - 1}`);
}
