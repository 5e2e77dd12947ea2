import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { basename } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';

/**
 * A CPU profile of each test file's fork while the file runs, written to TEST_CPU_PROFILE_DIR as
 * `<file>.<pid>.<time>.cpuprofile` (open it in Chrome's DevTools). vitest.config.ts adds this setup
 * file only when that variable is set. How the suite's time was found with it: docs/testing.md.
 */
const dir = process.env.TEST_CPU_PROFILE_DIR!;
// Files share a fork (isolate: false): one inspector session per fork, one profile per file.
const shared = globalThis as { cpuProfileSession?: Session };

beforeAll(async () => {
  if (shared.cpuProfileSession === undefined) {
    mkdirSync(dir, { recursive: true });
    shared.cpuProfileSession = new Session();
    shared.cpuProfileSession.connect();
    await shared.cpuProfileSession.post('Profiler.enable');
    await shared.cpuProfileSession.post('Profiler.setSamplingInterval', { interval: 1000 });
  }
  await shared.cpuProfileSession.post('Profiler.start');
});

afterAll(async () => {
  const { profile } = await shared.cpuProfileSession!.post('Profiler.stop');
  const file = basename(expect.getState().testPath ?? 'unknown');
  writeFileSync(`${dir}/${file}.${process.pid}.${Date.now()}.cpuprofile`, JSON.stringify(profile));
});
