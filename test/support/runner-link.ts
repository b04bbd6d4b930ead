// The network between the api and its runner, for tests of what a call comes to when that network
// fails: a TCP forwarder in front of the real runner that can cut a connection once the request has
// reached the runner (the runner ran the call; its answer never arrives) or stop taking connections.
import net from 'node:net';

export interface RunnerLink {
  /** The URL the api is given as APP_RUNNER_URL. */
  url: string;
  /** forward: pass everything; cut: drop the connection as the runner's answer starts. */
  mode: 'forward' | 'cut';
  /** Stops listening and closes every connection, resolving once the api's side has closed each. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

export async function startRunnerLink(runnerUrl: string): Promise<RunnerLink> {
  const target = new URL(runnerUrl);
  const sockets = new Set<net.Socket>();
  const link = { mode: 'forward' } as RunnerLink;
  const server = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(Number(target.port), target.hostname);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    client.on('error', drop);
    upstream.on('error', drop);
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (link.mode === 'cut') drop();
      else client.write(chunk);
    });
    upstream.on('end', () => client.end());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  link.url = `http://127.0.0.1:${port}`;
  link.pause = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // end(), not destroy(): each socket's close event then means the api's side closed it too, so its
    // connection pool holds none of them any more.
    await Promise.all(
      [...sockets].map(
        (socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()).end()),
      ),
    );
    await closed;
  };
  link.resume = () => listen(port);
  link.close = async () => {
    for (const socket of sockets) socket.destroy();
    if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return link;
}
