/**
 * A TCP relay in front of a server that a test can cut (every connection through it dropped, new ones closed at once)
 * and restore: the server goes away for the clients behind the relay only, not for the other tests sharing it.
 * Given several servers, it hands connections to each in turn, as a TCP load balancer in front of a fleet does.
 */
import { connect, createServer, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  /** Connections closed at once because the relay was cut: the clients' attempts to reach the server. */
  refused(): number;
  close(): Promise<void>;
}

type Target = { host: string; port: number };

export async function startTcpProxy(targets: Target | Target[]): Promise<TcpProxy> {
  const turn = [targets].flat();
  let next = 0;
  const open = new Set<Socket>();
  let cut = false;
  let refused = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    if (cut) return void (refused++, client.destroy());
    const target = turn[next++ % turn.length]!;
    const upstream = connect(target.port, target.host);
    track(client);
    track(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      dropAll();
    },
    restore() {
      cut = false;
    },
    refused: () => refused,
    close() {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
