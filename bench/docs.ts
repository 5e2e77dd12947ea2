/**
 * `npm run bench:docs`: how long `/docs` takes to show the API reference in a real browser, from
 * navigation until its first operation is drawn, as a visitor meets it: a fresh browser context
 * (nothing cached) on this machine's loopback, and on an emulated home connection (20 Mbit/s down,
 * 5 up, 40 ms round trip); then again with the cache warm. Prints the medians of `--runs` loads each.
 */
import { parseArgs } from 'node:util';
import { createHarness } from '../test/support/harness.ts';
import { serve } from '../test/support/serve.ts';
import { launchBrowser } from '../test/web/browser.ts';
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

// The arena as served, not as the tests check it: no response validation.
const h = await createHarness({ OPENAPI_VALIDATE_RESPONSES: 'false' });
const site = await serve(h);
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
  await site.close();
  await h.close();
}
