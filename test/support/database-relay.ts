// A TCP relay from a local port to PostgreSQL: a network between a process and its database that a test
// controls (a fault of the network, not a stand-in for the database). It can be cut (connections dropped
// and refused) and restored, and can hold each new connection before passing it on (a slow server).
import net from 'node:net';

export interface DatabaseRelay {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startDatabaseRelay(
  target: URL,
  options: { holdMs?: number } = {},
): Promise<DatabaseRelay> {
  const sockets = new Set<net.Socket>();
  let cut = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const pass = (client: net.Socket) => {
    if (cut || client.destroyed) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    track(upstream);
    client.pipe(upstream).pipe(client);
  };
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    track(client);
    if (options.holdMs) setTimeout(() => pass(client), options.holdMs);
    else pass(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      cut = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      cut = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
