import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The site's navigation, in order: every page shows it, the current one marked. */
export const NAVIGATION: readonly { readonly href: string; readonly label: string }[] = [
  { href: '/', label: 'Leaderboard' },
  { href: '/solo', label: 'Solo league' },
  { href: '/play', label: 'Play' },
  { href: '/live', label: 'Live' },
  { href: '/tournaments', label: 'Tournaments' },
  { href: '/register', label: 'Register a bot' },
  { href: '/starters', label: 'Starters' },
  { href: '/protocol', label: 'Bot protocol' },
  { href: '/my-bots', label: 'My bots' },
  { href: '/docs', label: 'API docs' },
];

const TITLE = /^<title>([^<]*)<\/title>\n/;

/**
 * One page of the site: `public/pages/<file>` put into `public/layout.html`, the one home of the
 * head, the navigation and the footer. A page file starts with its `<title>` and whatever else its
 * head needs (description, stylesheets, its module), then its `<main>`. `current` is the
 * navigation entry it marks (none for a bot, a match or a tournament).
 *
 * @example
 * const html = renderPage(PUBLIC_DIR, 'live.html', '/live');
 */
export function renderPage(publicDir: string, file: string, current: string | null): string {
  const layout = readFileSync(join(publicDir, 'layout.html'), 'utf8');
  const page = readFileSync(join(publicDir, 'pages', file), 'utf8');
  const title = TITLE.exec(page);
  if (!title) throw new Error(`public/pages/${file} must start with its <title>`);
  const rest = page.slice(title[0].length);
  const main = rest.indexOf('<main');
  if (main < 0) throw new Error(`public/pages/${file} has no <main>`);
  const indent = (text: string, spaces: number) =>
    text
      .trimEnd()
      .split('\n')
      .map((line) => (line === '' ? line : ' '.repeat(spaces) + line))
      .join('\n');
  const nav = NAVIGATION.map(
    ({ href, label }) =>
      `<li><a href="${href}"${href === current ? ' aria-current="page"' : ''}>${label}</a></li>`,
  ).join('\n');
  const parts: Record<string, string> = {
    title: title[1]!,
    head: indent(rest.slice(0, main), 4),
    nav: indent(nav, 12),
    main: indent(rest.slice(main), 4),
  };
  return layout.replace(
    /^\{\{(head|nav|main)\}\}$|\{\{(title)\}\}/gm,
    (_, block, inline) => parts[block ?? inline]!,
  );
}
