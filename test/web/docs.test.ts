import { readFileSync } from 'node:fs';
import { get, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createHarness, type Harness } from '../support/harness.ts';
import { serve } from '../support/serve.ts';
import { controlsOffScreen, launchBrowser, pageProblems, screenshot } from './browser.ts';

let h: Harness;
let site: Awaited<ReturnType<typeof serve>>;
let browser: Browser;
beforeAll(async () => {
  [h, browser] = await Promise.all([createHarness(), launchBrowser()]);
  site = await serve(h);
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await h?.close();
});

const BUNDLE = readFileSync(createRequire(import.meta.url).resolve('swagger-ui-dist/swagger-ui-bundle.js'));

/** Every operation and webhook of the contract: the reference draws one block each. */
const CONTRACT = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'));
const OPERATIONS = [...Object.values(CONTRACT.paths), ...Object.values(CONTRACT.webhooks ?? {})].flatMap(
  (item) =>
    Object.keys(item as object).filter((key) => ['get', 'put', 'post', 'patch', 'delete'].includes(key)),
).length;

/** An answer's status, headers and bytes as they crossed the wire (supertest would decode them). */
function raw(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(`${site.origin}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    }).on('error', reject);
  });
}

describe('the API reference at /docs', { timeout: 60_000 }, () => {
  it("draws every operation inside the site's layout, with its navigation", async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems = pageProblems(page);
    try {
      await page.goto(`${site.origin}/docs`);
      await page.locator('.opblock').first().waitFor();
      const operations = await page.locator('.opblock').count();
      expect(operations).toBe(OPERATIONS);
      expect(await page.locator('#docs-status').isHidden()).toBe(true);
      const nav = page.getByRole('navigation', { name: 'Main' });
      expect(await nav.getByRole('link', { name: 'API docs' }).getAttribute('aria-current')).toBe('page');
      expect(await nav.getByRole('link', { name: 'Leaderboard' }).getAttribute('href')).toBe('/');
      expect(await page.locator('.opblock-summary-path', { hasText: '/v1/leaderboard' }).count()).toBe(1);
      expect(problems).toEqual([]);
      await screenshot(page, 'docs');
    } finally {
      await page.close();
    }
  });

  it('fits a phone screen', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      await phone.goto(`${site.origin}/docs/`);
      await phone.locator('.opblock').first().waitFor();
      expect(await controlsOffScreen(phone)).toEqual([]);
      await screenshot(phone, 'docs-375');
    } finally {
      await phone.close();
    }
  });

  it('serves the Swagger UI bundle compressed, and as it ships to a client that takes no encoding', async () => {
    const br = await raw('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/Accept-Encoding/);
    // Buffer.equals: a deep equality of 1.7 MB element by element takes seconds.
    expect(brotliDecompressSync(br.body).equals(BUNDLE)).toBe(true);
    expect(br.body.length).toBeLessThan(BUNDLE.length / 3);

    const gz = await raw('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(BUNDLE)).toBe(true);

    const plain = await raw('/docs/assets/swagger-ui-bundle.js', { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(BUNDLE)).toBe(true);

    const again = await raw('/docs/assets/swagger-ui-bundle.js', {
      'if-none-match': String(br.headers.etag),
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('serves the contract compressed', async () => {
    const json = await raw('/openapi.json', { 'accept-encoding': 'br' });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(brotliDecompressSync(json.body).toString('utf8')).openapi).toMatch(/^3\./);
  });
});
