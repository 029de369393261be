import net from 'node:net';

/**
 * A TCP relay between the service and PostgreSQL that can go silent, as a cut network or a
 * vanished host does: nothing is closed or refused, bytes are simply no longer delivered, in
 * either direction, on open connections and on new ones (accepted, never answered).
 * `restore` lets new connections through again; connections cut off stay cut off, as the
 * server's side of a partition does until its own timeouts end them.
 */
export interface SilentProxy {
  port: number;
  silence(): void;
  restore(): void;
  /** Closes everything: the server's sessions behind the proxy end (and roll back). */
  close(): Promise<void>;
}

export async function startSilentProxy(targetHost: string, targetPort: number): Promise<SilentProxy> {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  const keep = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = net.createServer((downstream) => {
    keep(downstream);
    if (silent) {
      downstream.pause();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    keep(upstream);
    downstream.pipe(upstream);
    upstream.pipe(downstream);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
    pairs.add([downstream, upstream]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    silence() {
      silent = true;
      for (const [downstream, upstream] of pairs) {
        downstream.unpipe(upstream);
        upstream.unpipe(downstream);
        downstream.pause();
        upstream.pause();
        // Closed by neither end's wish any more: a cut line carries no FIN either.
        downstream.removeAllListeners('close');
        upstream.removeAllListeners('close');
        downstream.on('close', () => sockets.delete(downstream));
        upstream.on('close', () => sockets.delete(upstream));
      }
      pairs.clear();
    },
    restore() {
      silent = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
