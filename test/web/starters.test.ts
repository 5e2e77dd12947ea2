import { readdirSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const STARTERS = new URL('../../starters/', import.meta.url);
/** Every file of each kit, as the repository holds them. */
const KITS = ['python', 'typescript'].map(
  (kit) =>
    [
      kit,
      readdirSync(new URL(`${kit}/`, STARTERS), { withFileTypes: true })
        .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
        .map((entry) => entry.name),
    ] as const,
);

describe('the starter kits at /starters', () => {
  it("links every file of both kits, and the page is in the site's navigation", async () => {
    const page = await request(h.app).get('/starters');
    expect(page.status).toBe(200);
    const links = [...page.text.matchAll(/href="(\/starters\/[^"]+)"/g)].map((m) => m[1]);
    for (const [kit, files] of KITS) {
      expect(files.length).toBeGreaterThan(2);
      for (const file of files) expect(links).toContain(`/starters/${kit}/${file}`);
    }
    expect(page.text).toContain('<a href="/starters" aria-current="page">Starters</a>');
    for (const other of ['/', '/register', '/protocol', '/play']) {
      expect((await request(h.app).get(other)).text).toContain('<a href="/starters">Starters</a>');
    }
  });

  it.each(KITS)('serves each %s file as text, byte for byte', async (kit, files) => {
    for (const file of files) {
      const res = await request(h.app)
        .get(`/starters/${kit}/${file}`)
        .buffer(true)
        .parse((r, done) => {
          const chunks: Buffer[] = [];
          r.on('data', (chunk: Buffer) => chunks.push(chunk));
          r.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toEqual(readFileSync(new URL(`${kit}/${file}`, STARTERS)));
    }
  });

  it.each([
    '/starters/python/nothing.py',
    '/starters/cobol/bot.cob',
    '/starters/python/..%2F..%2Fpackage.json',
    '/starters/typescript/%2E%2E%2Fpython%2Fstrategy.py',
    '/starters/typescript/node_modules',
  ])('answers 404 for %s, which is no starter file', async (path) => {
    const res = await request(h.app).get(path);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('choose_move');
  });

  it('is linked from the register and protocol pages', async () => {
    for (const path of ['/register', '/protocol']) {
      const { text } = await request(h.app).get(path);
      // In the page's own text, not only in the navigation every page has.
      expect(text.slice(text.indexOf('<main'))).toContain('<a href="/starters">starter kits</a>');
    }
  });
});
