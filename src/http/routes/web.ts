import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Response, Router } from 'express';
import { ID_PATTERN } from '../../support/ids.ts';
import { PROJECT_ROOT } from '../../support/project-root.ts';
import { precompressed } from '../precompressed.ts';
import { renderPage } from './web-pages.ts';

/** The web front end: hand-written HTML, ES modules and CSS in public/, built on the public API. */
export const PUBLIC_DIR = fileURLToPath(new URL('public/', PROJECT_ROOT));

/**
 * JS and CSS may be reused for 5 minutes, then are revalidated by ETag. There is no build step to
 * fingerprint file names, so a long max-age would keep old code after a deploy; pages themselves are
 * always revalidated, so a new page meets old modules for at most this long.
 */
export const ASSET_CACHE_CONTROL = 'public, max-age=300';
/** Pages are revalidated on every load (ETag / Last-Modified answer 304 when unchanged). */
export const PAGE_CACHE_CONTROL = 'no-cache';

/** The pages' paths, in openapi.yaml's template syntax (they answer GET only). */
export const WEB_PAGES = [
  '/',
  '/live',
  '/register',
  '/protocol',
  '/starters',
  '/starters/{kit}/{file}',
  '/play',
  '/solo',
  '/bots/{botId}',
  '/matches/{matchId}',
  '/tournaments',
  '/tournaments/{tournamentId}',
  '/my-bots',
  '/favicon.svg',
];

/**
 * @simplewebauthn/browser's ES modules, as the package ships them: the My bots page imports them
 * directly (no bundler), from the arena's own origin, as its Content Security Policy wants.
 */
const WEBAUTHN_BROWSER_DIR = dirname(fileURLToPath(import.meta.resolve('@simplewebauthn/browser')));

/**
 * The starter kits' files, by kit, as the repository's `starters/` holds them: the files at the top of
 * each kit's folder, and nothing else (no folder, no dotfile, no path a request could make up).
 */
const STARTERS_DIR = fileURLToPath(new URL('starters/', PROJECT_ROOT));
const STARTER_FILES: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  ['python', 'typescript'].map((kit) => {
    const dir = join(STARTERS_DIR, kit);
    const files = existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true })
          .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
          .map((entry) => entry.name)
      : [];
    return [kit, new Set(files)];
  }),
);

/**
 * Swagger UI as swagger-ui-dist ships it: the /docs page loads its bundle and stylesheet from the
 * arena, compressed (see precompressed), and draws /openapi.json inside the site's layout.
 */
const SWAGGER_UI_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const SWAGGER_UI_FILES = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const;

/** Pages are put together once per process, then answered from memory (ETag from their bytes). */
const rendered = new Map<string, string>();

function sendPage(res: Response, file: string, current: string | null, status = 200): void {
  let html = rendered.get(file);
  if (html === undefined) {
    html = renderPage(PUBLIC_DIR, file, current);
    rendered.set(file, html);
  }
  res.status(status).type('html').set('Cache-Control', PAGE_CACHE_CONTROL).send(html);
}

const page =
  (file: string, current: string | null, idPattern?: RegExp, param?: string): RequestHandler =>
  (req, res) => {
    // An id that cannot exist gets the not-found page at once; a well-formed but unknown id is
    // found out by the page itself, which asks the API.
    const id = param ? req.params[param] : undefined;
    if (idPattern && !idPattern.test(String(id))) return sendPage(res, 'not-found.html', null, 404);
    sendPage(res, file, current);
  };

/**
 * Serves the front end under `/`: the pages at `/`, `/live`, `/register`, `/protocol`, `/play`,
 * `/solo`, `/bots/<botId>`, `/matches/<matchId>`, `/tournaments` and `/tournaments/<tournamentId>`,
 * and their files under `/assets/`. Mount it after the API routers and before the not-found
 * handler; it answers nothing under `/v1`.
 *
 * @example
 * app.use(webRouter());
 */
export function webRouter(): Router {
  const router = Router();
  router.get('/', page('index.html', '/'));
  router.get('/live', page('live.html', '/live'));
  router.get('/register', page('register.html', '/register'));
  router.get('/protocol', page('protocol.html', '/protocol'));
  router.get('/play', page('play.html', '/play'));
  router.get('/solo', page('solo.html', '/solo'));
  router.get('/bots/:botId', page('bot.html', null, ID_PATTERN.bot, 'botId'));
  router.get('/matches/:matchId', page('match.html', null, ID_PATTERN.match, 'matchId'));
  router.get('/tournaments', page('tournaments.html', '/tournaments'));
  router.get(
    '/tournaments/:tournamentId',
    page('tournament.html', null, ID_PATTERN.tournament, 'tournamentId'),
  );
  router.get('/my-bots', page('my-bots.html', '/my-bots'));
  router.get('/starters', page('starters.html', '/starters'));
  // `/docs/` too (routing is not strict), where the reference used to be.
  router.get('/docs', page('docs.html', '/docs'));
  for (const [file, type] of Object.entries(SWAGGER_UI_FILES)) {
    router.get(`/docs/assets/${file}`, precompressed(join(SWAGGER_UI_DIR, file), type, ASSET_CACHE_CONTROL));
  }
  // A starter's file as text, to read in the browser or save as it is.
  router.get('/starters/:kit/:file', (req, res, next) => {
    const { kit = '', file = '' } = req.params;
    if (!STARTER_FILES.get(kit)?.has(file)) return next();
    res.sendFile(file, {
      root: join(STARTERS_DIR, kit),
      cacheControl: false,
      headers: {
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Disposition': `inline; filename="${file}"`,
        'Cache-Control': ASSET_CACHE_CONTROL,
      },
    });
  });
  router.use(
    '/assets/vendor/simplewebauthn',
    express.static(WEBAUTHN_BROWSER_DIR, {
      index: false,
      redirect: false,
      fallthrough: true,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('Cache-Control', ASSET_CACHE_CONTROL),
    }),
  );
  router.get('/favicon.svg', (_req, res) => {
    res.sendFile('favicon.svg', {
      root: PUBLIC_DIR,
      cacheControl: false,
      headers: { 'Cache-Control': 'public, max-age=86400' },
    });
  });
  router.use(
    '/assets',
    express.static(join(PUBLIC_DIR, 'assets'), {
      index: false,
      redirect: false,
      fallthrough: true,
      etag: true,
      lastModified: true,
      cacheControl: false,
      setHeaders: (res) => res.setHeader('Cache-Control', ASSET_CACHE_CONTROL),
    }),
  );
  return router;
}
