import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Harness } from './harness.ts';

/** The harness' app on a loopback port, for real HTTP clients (fetch, a browser, a bot's CLI). */
export async function serve(h: Harness): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
