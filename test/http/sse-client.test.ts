import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { openSse } from '../support/sse.ts';

// The tests' event-stream client (test/support/sse.ts), as the tests use it: opened first, read
// only after other requests. Its stream once ended, now and then, before its first event.
describe('an event stream opened with openSse and read later', () => {
  it('still has its events after a garbage collection in between', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('retry: 1000\n');
      setTimeout(() => res.write('event: hello\ndata: 1\n\n'), 200);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const stream = await openSse(`http://127.0.0.1:${port}/`, {});
      try {
        setFlagsFromString('--expose-gc');
        const gc = runInNewContext('gc') as () => void;
        // A collection, then a turn of the event loop for its finalizers to run.
        for (let i = 0; i < 3; i++) {
          gc();
          await delay(20);
        }
        expect(await stream.next()).toEqual({ event: 'hello', data: '1' });
      } finally {
        stream.close();
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
