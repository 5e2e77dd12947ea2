import { readdir, readFile } from 'node:fs/promises';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASSET_CACHE_CONTROL, PUBLIC_DIR } from '../../src/http/routes/web.ts';
import { NAVIGATION } from '../../src/http/routes/web-pages.ts';
import { createHarness, type Harness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const PAGES = [
  ['/', 'Leaderboard'],
  ['/register', 'Register a bot'],
  ['/protocol', 'Bot protocol'],
  ['/starters', 'Starter kits'],
  ['/play', 'Play'],
  ['/solo', 'Solo league'],
  ['/bots/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH', 'Bot'],
  ['/matches/match_01JC3S2Q7G5T1XK0V3JH3W6R2D', 'Match'],
] as const;

describe('the web pages', () => {
  describe.each(PAGES)('GET %s', (path, title) => {
    it('answers the HTML page, revalidated on every load', async () => {
      const res = await request(h.app).get(path);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers.etag).toBeTruthy();
      expect(res.text).toContain(`<title>${title}`);
      const again = await request(h.app).get(path).set('If-None-Match', String(res.headers.etag));
      expect(again.status).toBe(304);
    });

    it('carries the strict content security policy (no inline scripts)', async () => {
      const res = await request(h.app).get(path);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script is a file
      expect(res.text).not.toMatch(/\son[a-z]+=/); // no inline event handlers
    });
  });

  it('shows one navigation on every page, the current page marked', async () => {
    const pages = [...PAGES.map(([path]) => path), '/live', '/tournaments', '/my-bots', '/bots/nope'];
    for (const path of pages) {
      const res = await request(h.app).get(path);
      const nav = /<nav class="site-nav"[\s\S]*?<\/nav>/.exec(res.text)?.[0] ?? '';
      const links = [...nav.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => href);
      expect(links, path).toEqual(NAVIGATION.map((entry) => entry.href));
      const marked = [...nav.matchAll(/<a href="([^"]+)" aria-current="page"/g)].map(([, href]) => href);
      const own = NAVIGATION.find((entry) => entry.href === path);
      expect(marked, path).toEqual(own ? [path] : []);
      // One head, one footer: the layout's, whatever the page.
      expect(res.text.match(/<footer class="site-footer">/g), path).toHaveLength(1);
      expect(res.text.match(/<link rel="stylesheet" href="\/assets\/base.css">/g), path).toHaveLength(1);
    }
  });

  it('answers the not-found page for an id that cannot exist', async () => {
    for (const path of ['/bots/nope', '/matches/bot_01JC3S0M0F7ZP4C8W4Y4N0Y8QH']) {
      const res = await request(h.app).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('Not found');
    }
  });

  it('leaves the API alone: unknown API paths stay problem documents', async () => {
    const res = await request(h.app).get('/v1/nothing-here').set('Accept', 'text/html');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('the static files under /assets', () => {
  it('serves JavaScript modules and CSS with an ETag and a short max-age', async () => {
    const js = await request(h.app).get('/assets/js/common.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/^(text|application)\/javascript/);
    expect(js.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
    expect(js.headers['cache-control']).toMatch(/max-age=\d{1,4}\b/);
    expect(js.headers.etag).toBeTruthy();
    const again = await request(h.app)
      .get('/assets/js/common.js')
      .set('If-None-Match', String(js.headers.etag));
    expect(again.status).toBe(304);
    const css = await request(h.app).get('/assets/base.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    expect(css.headers['cache-control']).toBe(ASSET_CACHE_CONTROL);
  });

  it('has every file a page or a module refers to', async () => {
    const files = (await readdir(PUBLIC_DIR, { recursive: true })).filter((file) =>
      /\.(html|js)$/.test(file),
    );
    const refs = new Set<string>();
    for (const file of files) {
      const text = await readFile(`${PUBLIC_DIR}${file}`, 'utf8');
      for (const [, ref] of text.matchAll(/(?:src|href)="(\/(?:assets\/|favicon)[^"]+)"/g)) refs.add(ref!);
      for (const [, ref] of text.matchAll(/from '\.\/([\w-]+\.js)'/g)) refs.add(`/assets/js/${ref}`);
    }
    expect(refs.size).toBeGreaterThan(8);
    for (const ref of refs) {
      const res = await request(h.app).get(ref);
      expect(res.status, ref).toBe(200);
    }
  });

  it('answers a missing file with a 404 problem', async () => {
    const res = await request(h.app).get('/assets/js/missing.js');
    expect(res.status).toBe(404);
  });
});
