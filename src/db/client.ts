// A single connection outside the pool (start-up, migrations, LISTEN, probes). pg emits 'error' on a
// client whose server goes away between statements; unheard, it would end the process. The statement
// awaited next reports the loss instead.
import pg from 'pg';

export function openClient(config: pg.ClientConfig): pg.Client {
  const client = new pg.Client(config);
  client.on('error', () => {});
  return client;
}
