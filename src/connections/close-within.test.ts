import { describe, expect, it } from 'vitest';
import { endWithin } from './close-within.ts';

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
