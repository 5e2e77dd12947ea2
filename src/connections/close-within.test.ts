import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { endWithin, quitWithin } from './close-within.ts';

describe('endWithin', () => {
  it('waits for an end that comes in time, and drops nothing', async () => {
    let dropped = 0;
    const ended = await endWithin(
      () => new Promise((resolve) => setTimeout(resolve, 5)),
      () => dropped++,
      1000,
    );
    expect(ended).toBe(true);
    expect(dropped).toBe(0);
  });

  it('drops the connections of an end that never comes, without waiting on the drop', async () => {
    let dropped = 0;
    const ended = await endWithin(
      () => new Promise(() => {}),
      () => {
        dropped++;
        return new Promise(() => {}); // a disconnect stuck as the close was
      },
      20,
    );
    expect(ended).toBe(false);
    await Promise.resolve();
    expect(dropped).toBe(1);
  });
});

describe('quitWithin', () => {
  it('drops a connection that cannot send its QUIT (no offline queue, Redis away), and resolves', async () => {
    const client = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    client.on('error', () => {});
    await expect(quitWithin(client, 1000)).resolves.toBeUndefined();
    // Dropped: the connection ends (rather than retrying, or waiting for a QUIT never sent).
    if (client.status !== 'end') await new Promise((ended) => client.once('end', ended));
    expect(client.status).toBe('end');
  });
});
