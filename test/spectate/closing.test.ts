import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DrainingServer, drainOnClose } from '../../src/http/shutdown.ts';
import { registerBot } from '../support/api.ts';
import { createMatch } from '../support/arena.ts';
import { createHarness, type Harness } from '../support/harness.ts';
import { specSchema } from '../support/spec-schema.ts';
import { openSse } from '../support/sse.ts';

// A harness of its own: once its app has closed, it serves no stream again.
let h: Harness;
let server: Server;
let origin: string;
let draining: DrainingServer;
beforeAll(async () => {
  h = await createHarness();
  server = h.app.listen(0, '127.0.0.1');
  // As src/main.ts does: watched from the start, so every connection is closed once answered.
  draining = drainOnClose(server, h.app);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await h?.close();
});

describe('a spectator stream when the arena shuts down', () => {
  it('says arenaClosing, without an id, and ends, so the browser reconnects elsewhere and resumes', async () => {
    const a = await registerBot(h, { name: 'closing-a', url: 'http://127.0.0.1:9/' });
    const b = await registerBot(h, { name: 'closing-b', url: 'http://127.0.0.1:9/' });
    const id = await createMatch(h, a.id, b.id);
    const stream = await openSse(`${origin}/v1/matches/${id}/events`, {});
    expect((await stream.next()).event).toBe('state');

    const closed = draining.close(5000);
    const closing = await stream.next();
    expect(closing).toEqual({ event: 'arenaClosing', data: JSON.stringify({ reconnectAfterMs: 2000 }) });
    expect(specSchema('ArenaClosingEvent')(JSON.parse(closing.data))).toEqual([]);
    await expect(stream.next()).rejects.toThrow(/ended/);
    await closed;
  });
});
