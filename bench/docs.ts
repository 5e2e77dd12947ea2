/**
 * `npm run bench:docs`: how long `/docs` takes to show the API reference in a real browser, from
 * navigation until its first operation is drawn, as a visitor meets it: a fresh browser context
 * (nothing cached) on this machine's loopback, and on an emulated home connection (20 Mbit/s down,
 * 5 up, 40 ms round trip); then again with the cache warm. Prints the medians of `--runs` loads each.
 */

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../src/config.ts';
import { deleteKeysUnder } from '../src/redis/maintenance.ts';
import { startApi } from '../src/wiring/api-process.ts';
import { launchBrowser } from './browser.ts';
import { percentile } from './percentile.ts';

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);
const NETWORKS = {
  loopback: null,
  'home (20 Mbit/s, 40 ms)': { latency: 40, downloadThroughput: 2_500_000, uploadThroughput: 625_000 },
} as const;

// The API alone, as npm start serves it (no workers, no house bots, data under a prefix of its own).
const config = loadConfig({
  ...process.env,
  REDIS_PREFIX: `bench-docs-${process.pid}`,
  HOUSE_BOTS: 'false',
  WORKERS_IN_PROCESS: 'false',
});
const api = await startApi(config, pino({ level: 'silent' }), () => false);
const server = api.app.listen(0, '127.0.0.1');
await once(server, 'listening');
const site = { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
const browser = await launchBrowser();
try {
  for (const [name, network] of Object.entries(NETWORKS)) {
    const cold: number[] = [];
    const warm: number[] = [];
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      if (network) await cdp.send('Network.emulateNetworkConditions', { offline: false, ...network });
      let received = 0;
      cdp.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
        received += event.encodedDataLength;
      });
      for (const times of [cold, warm]) {
        const started = performance.now();
        await page.goto(`${site.origin}/docs/`);
        await page
          .locator(process.env.DOCS_DRAWN ?? '.opblock')
          .first()
          .waitFor({ timeout: 60_000 });
        times.push(performance.now() - started);
        if (times === cold) bytes = received;
      }
      await context.close();
    }
    console.log(
      `${name}: cold ${Math.round(median(cold))} ms (${Math.round(bytes / 1024)} kB over the wire), warm ${Math.round(median(warm))} ms`,
    );
  }
} finally {
  await browser.close();
  server.closeAllConnections();
  server.close();
  await deleteKeysUnder(api.redis, config.redis.prefix);
  await api.close();
}
