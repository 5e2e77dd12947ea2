// The leaderboard (home page): GET /v1/leaderboard, sortable columns, refreshed every 10 s in place.
// The server splits the bots: `items` are the ranked ones (LEADERBOARD_MIN_GAMES rated games or more,
// its `minGames`), `unranked` the others, listed apart under "Unranked"; entries carry their pause.
// Against an older server without the split, the page makes it from each entry's games count.
import {
  api,
  botLink,
  el,
  errorMessage,
  formatDateTime,
  formatRating,
  formatTime,
  replaceChildren,
  timeEl,
} from './common.js';

const REFRESH_MS = 10_000;
const PAGE = 100;
/**
 * Rated games a bot needs before it is ranked, until the server says (its answer's `minGames`, from
 * LEADERBOARD_MIN_GAMES, whose default this is).
 */
const DEFAULT_MIN_RANKED_GAMES = 5;
/** Pages of GET /v1/bots read for pause marks (100 bots each); bots past them show no pause mark. */
const MAX_BOT_PAGES = 10;

/**
 * Each column: how to read its sort key (null sorts last whatever the direction) and which direction a
 * first click sorts in (ranks and names ascending, numbers best first).
 */
const COLUMNS = {
  rank: { key: (e) => e.rank, first: 'asc' },
  bot: { key: (e) => e.bot.name.toLowerCase(), first: 'asc' },
  rating: { key: (e) => e.rating, first: 'desc' },
  strength: { key: (e) => e.strength?.rating ?? null, first: 'desc' },
  games: { key: (e) => e.games, first: 'desc' },
  record: { key: (e) => (e.games > 0 ? (e.wins + e.draws / 2) / e.games : null), first: 'desc' },
  lastPlayed: { key: (e) => (e.lastPlayedAt ? Date.parse(e.lastPlayedAt) : null), first: 'desc' },
};

const $ = (id) => document.getElementById(id);
const state = {
  entries: [],
  /** @type {Map<string, { reason: string, since: string }>} bot id → its matchmaking pause */
  paused: new Map(),
  total: 0,
  /** How many unranked bots there are, when the server says. */
  unrankedTotal: null,
  minGames: DEFAULT_MIN_RANKED_GAMES,
  strengthComputedAt: null,
  limit: PAGE,
  sort: 'rank',
  dir: 'asc',
  lastJson: '',
  timer: 0,
  failures: 0,
};

/** `slow` on /?pool=slow: the slow pool's leaderboard (bots that opted in, rated apart). */
const POOL = new URLSearchParams(location.search).get('pool') === 'slow' ? 'slow' : 'arena';
const poolQuery = POOL === 'slow' ? '&pool=slow' : '';

function showPool() {
  for (const link of document.querySelectorAll('#lb-pools a')) {
    if (link.dataset.pool === POOL) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  $('lb-slow-note').hidden = POOL !== 'slow';
  if (POOL === 'slow') {
    $('lb-empty').textContent =
      'No bot has played in the slow pool yet: a bot opts in with PATCH { "slowPool": true }.';
  }
}

function readSortFromUrl() {
  const params = new URLSearchParams(location.search);
  const sort = params.get('sort');
  if (sort && Object.hasOwn(COLUMNS, sort)) {
    state.sort = sort;
    state.dir =
      params.get('dir') === 'desc' ? 'desc' : params.get('dir') === 'asc' ? 'asc' : COLUMNS[sort].first;
  }
}

function writeSortToUrl() {
  const url = new URL(location.href);
  if (state.sort === 'rank' && state.dir === 'asc') {
    url.searchParams.delete('sort');
    url.searchParams.delete('dir');
  } else {
    url.searchParams.set('sort', state.sort);
    url.searchParams.set('dir', state.dir);
  }
  history.replaceState(null, '', url);
}

function sorted(entries) {
  const { key } = COLUMNS[state.sort];
  const sign = state.dir === 'asc' ? 1 : -1;
  return [...entries].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka === null || kb === null) {
      if (ka === kb) return a.rank - b.rank;
      return ka === null ? 1 : -1;
    }
    if (ka < kb) return -sign;
    if (ka > kb) return sign;
    return a.rank - b.rank; // ties keep leaderboard order
  });
}

/**
 * Splits entries into the ranked (numbered 1, 2, … in the API's order) and the unranked. Tolerates
 * the server making the split itself: an entry's own `ranked` flag wins over the games count.
 */
function split(entries) {
  const isRanked = (entry) =>
    typeof entry.ranked === 'boolean' ? entry.ranked : entry.games >= state.minGames;
  const ranked = entries.filter(isRanked).map((entry, index) => ({ ...entry, place: index + 1 }));
  return { ranked, unranked: entries.filter((entry) => !isRanked(entry)) };
}

/**
 * The matchmaking pauses of the listed bots: from the entries when they carry `paused`, else from
 * GET /v1/bots (its documents do), at most MAX_BOT_PAGES pages.
 */
async function loadPauses(entries) {
  if (entries.length > 0 && entries.every((entry) => 'paused' in entry)) {
    return new Map(entries.filter((entry) => entry.paused).map((entry) => [entry.bot.id, entry.paused]));
  }
  const paused = new Map();
  let cursor = null;
  for (let page = 0; page < MAX_BOT_PAGES; page++) {
    const query = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const bots = await api(`/v1/bots?limit=${PAGE}${query}`);
    for (const bot of bots.items) if (bot.paused) paused.set(bot.id, bot.paused);
    cursor = bots.nextCursor;
    if (!cursor) break;
  }
  return paused;
}

function ratingCell(entry) {
  return el(
    'td',
    { class: 'num elo', dataset: { label: 'Elo' } },
    formatRating(entry.rating),
    entry.provisional
      ? el(
          'span',
          { class: 'badge', title: 'Provisional: few rated games so far' },
          el('span', { 'aria-hidden': 'true' }, 'prov.'),
          el('span', { class: 'visually-hidden' }, '(provisional)'),
        )
      : null,
  );
}

function strengthCell(strength) {
  const props = { class: 'num strength', dataset: { label: 'Strength' } };
  if (!strength) return el('td', props, el('span', { title: 'Not computed yet' }, '—'));
  return el(
    'td',
    props,
    formatRating(strength.rating),
    ' ',
    el(
      'span',
      { class: 'interval' },
      el(
        'span',
        { 'aria-hidden': 'true' },
        `[${formatRating(strength.lower)}–${formatRating(strength.upper)}]`,
      ),
      el(
        'span',
        { class: 'visually-hidden' },
        `95% interval ${formatRating(strength.lower)} to ${formatRating(strength.upper)}`,
      ),
    ),
  );
}

function nameCell(entry) {
  const paused = state.paused.get(entry.bot.id);
  return el(
    'th',
    { scope: 'row', class: 'name' },
    botLink(entry.bot),
    entry.house
      ? el('span', { class: 'badge house', title: "One of the arena's own sparring partners" }, 'house')
      : null,
    paused
      ? el(
          'span',
          { class: 'badge paused', title: `Matchmaking paused: ${paused.reason}` },
          el('span', { 'aria-hidden': 'true' }, 'paused'),
          el('span', { class: 'visually-hidden' }, `(matchmaking paused: ${paused.reason})`),
        )
      : null,
  );
}

/** A table row; `place` is the rank shown in the ranked table (the unranked one has no rank column). */
function row(entry, now) {
  return el(
    'tr',
    { dataset: { botId: entry.bot.id } },
    entry.place === undefined ? null : el('td', { class: 'num rank' }, String(entry.place)),
    nameCell(entry),
    ratingCell(entry),
    strengthCell(entry.strength),
    el('td', { class: 'num games', dataset: { label: 'Games' } }, String(entry.games)),
    el(
      'td',
      { class: 'num record', dataset: { label: 'W/D/L' } },
      el('span', { class: 'win' }, String(entry.wins)),
      ' / ',
      el('span', { class: 'draw' }, String(entry.draws)),
      ' / ',
      el('span', { class: 'loss' }, String(entry.losses)),
    ),
    el(
      'td',
      { class: 'last-played', dataset: { label: 'Last played' } },
      entry.lastPlayedAt ? timeEl(entry.lastPlayedAt, now) : el('span', { class: 'muted' }, 'never'),
    ),
  );
}

function renderHeader() {
  for (const th of document.querySelectorAll('#leaderboard th[data-sort]')) {
    const active = th.dataset.sort === state.sort;
    if (active) th.setAttribute('aria-sort', state.dir === 'asc' ? 'ascending' : 'descending');
    else th.removeAttribute('aria-sort');
    th.querySelector('.arrow').textContent = active ? (state.dir === 'asc' ? '▲' : '▼') : '↕';
  }
}

function renderBody() {
  const bodies = [$('lb-body'), $('lb-unranked-body')];
  // A refresh rebuilds the rows: remember which bot link had focus and give it back.
  const focused = bodies.some((body) => body.contains(document.activeElement))
    ? document.activeElement.closest('tr')?.dataset.botId
    : undefined;
  const now = Date.now();
  const { ranked, unranked } = split(state.entries);
  replaceChildren(
    $('lb-body'),
    sorted(ranked).map((entry) => row(entry, now)),
  );
  replaceChildren(
    $('lb-unranked-body'),
    sorted(unranked).map((entry) => row(entry, now)),
  );
  if (focused) {
    const selector = `tr[data-bot-id="${CSS.escape(focused)}"] a`;
    (bodies[0].querySelector(selector) ?? bodies[1].querySelector(selector))?.focus();
  }

  const loaded = state.entries.length > 0;
  $('lb-empty').hidden = loaded;
  $('lb-ranked').hidden = ranked.length === 0;
  $('lb-none-ranked').hidden = !loaded || ranked.length > 0;
  $('lb-unranked').hidden = unranked.length === 0;
  // `total` counts the ranked bots when the server splits them (`unrankedTotal` the others), else all.
  const splitByServer = state.unrankedTotal !== null;
  const shown = splitByServer ? ranked.length : state.entries.length;
  const more = state.total > shown;
  $('lb-more-wrap').hidden = !more;
  $('lb-count').textContent = splitByServer
    ? `Showing ${ranked.length} of ${state.total} ranked bots and ${unranked.length} of ${state.unrankedTotal} unranked.`
    : `Showing ${state.entries.length} of ${state.total} bots.`;
  $('lb-strength-at').textContent = state.strengthComputedAt
    ? `Last computed ${formatDateTime(state.strengthComputedAt)}.`
    : '';
}

async function refresh() {
  clearTimeout(state.timer);
  try {
    const page = await api(`/v1/leaderboard?limit=${Math.min(state.limit, PAGE)}${poolQuery}`);
    let { items } = page;
    // Past the first page (after "Show more"), fetch the further pages by offset.
    while (items.length < Math.min(state.limit, page.total) && items.length % PAGE === 0) {
      const next = await api(`/v1/leaderboard?limit=${PAGE}&offset=${items.length}${poolQuery}`);
      if (next.items.length === 0) break;
      items = items.concat(next.items);
    }
    // A server that makes the ranked/unranked split itself may answer the unranked apart: its split wins.
    if (Array.isArray(page.unranked)) {
      items = [
        ...items.map((entry) => ({ ranked: true, ...entry })),
        ...page.unranked.map((entry) => ({ ranked: false, ...entry })),
      ];
    }
    const paused = await loadPauses(items);
    state.failures = 0;
    $('lb-error').hidden = true;
    const json = JSON.stringify([items, page.total, page.strengthComputedAt, [...paused]]);
    const changed = json !== state.lastJson;
    state.lastJson = json;
    state.entries = items;
    state.paused = paused;
    state.total = page.total;
    state.unrankedTotal = typeof page.unrankedTotal === 'number' ? page.unrankedTotal : null;
    if (typeof page.minGames === 'number' && page.minGames !== state.minGames) {
      state.minGames = page.minGames;
      describeRule();
    }
    state.strengthComputedAt = page.strengthComputedAt;
    // Relative times move on even when nothing else changed; rows are cheap to rebuild.
    renderBody();
    // Announce only real changes, so a screen reader is not told "updated" every 10 s.
    if (changed) $('lb-status').textContent = `Updated at ${formatTime(new Date())}.`;
    $('lb-checked').textContent = `Checked ${formatTime(new Date())}; refreshes every 10 s.`;
  } catch (error) {
    state.failures++;
    const box = $('lb-error');
    box.textContent = errorMessage(error);
    box.hidden = false;
    if (state.entries.length === 0) $('lb-status').textContent = 'Could not load the leaderboard.';
  }
  schedule();
}

function schedule() {
  clearTimeout(state.timer);
  if (document.hidden) return; // resumes on visibilitychange
  // Back off while the API fails (up to a minute), so an outage is not hammered.
  const delay = Math.min(REFRESH_MS * 2 ** state.failures, 60_000);
  state.timer = setTimeout(refresh, delay);
}

function onSortClick(event) {
  const th = event.target.closest('th[data-sort]');
  if (!th) return;
  const column = th.dataset.sort;
  if (column === state.sort) state.dir = state.dir === 'asc' ? 'desc' : 'asc';
  else {
    state.sort = column;
    state.dir = COLUMNS[column].first;
  }
  writeSortToUrl();
  renderHeader();
  renderBody();
}

/** The texts that name the games a rank needs. */
function describeRule() {
  const games = `${state.minGames} rated ${state.minGames === 1 ? 'game' : 'games'}`;
  $('lb-rule').textContent =
    `A bot is ranked once it has played ${games}; until then it is listed under Unranked.`;
  $('lb-none-ranked').textContent =
    `No bot has played ${games} yet, so none is ranked: they are all listed under Unranked.`;
  $('lb-unranked-note').textContent =
    `Bots with fewer than ${games}: their ratings still say little, so they are not ranked yet.`;
}

showPool();
readSortFromUrl();
renderHeader();
describeRule();
document.querySelector('#leaderboard thead').addEventListener('click', onSortClick);
$('lb-more').addEventListener('click', () => {
  state.limit += PAGE;
  refresh();
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refresh();
});
refresh();
