import { describe, expect, it } from 'vitest';
import { Closing } from './shutdown.ts';

describe('Closing', () => {
  it('aborts every watched controller when the shutdown starts, and none it forgot', () => {
    const closing = new Closing();
    const watched = Array.from({ length: 3 }, () => new AbortController());
    for (const stop of watched) closing.watch(stop);
    const [forgotten] = watched;
    closing.forget(forgotten as AbortController);
    expect(closing.started).toBe(false);
    expect(watched.map((stop) => stop.signal.aborted)).toEqual([false, false, false]);
    closing.start();
    expect(closing.started).toBe(true);
    expect(watched.map((stop) => stop.signal.aborted)).toEqual([false, true, true]);
  });

  it('aborts a controller watched after the shutdown started at once', () => {
    const closing = new Closing();
    closing.start();
    const late = new AbortController();
    closing.watch(late);
    expect(late.signal.aborted).toBe(true);
  });
});
