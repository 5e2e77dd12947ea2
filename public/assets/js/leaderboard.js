// The leaderboard (home page): GET /v1/leaderboard, sortable columns, refreshed every 10 s in place.
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
  total: 0,
  strengthComputedAt: null,
  limit: PAGE,
  sort: 'rank',
  dir: 'asc',
  lastJson: '',
  timer: 0,
  failures: 0,
};

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

function ratingCell(entry) {
  return el(
    'td',
    { class: 'num' },
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
  if (!strength) return el('td', { class: 'num' }, el('span', { title: 'Not computed yet' }, '—'));
  return el(
    'td',
    { class: 'num' },
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

function row(entry, now) {
  return el(
    'tr',
    { dataset: { botId: entry.bot.id } },
    el('td', { class: 'num' }, String(entry.rank)),
    el(
      'th',
      { scope: 'row' },
      botLink(entry.bot),
      entry.house
        ? el('span', { class: 'badge', title: "One of the arena's own sparring partners" }, 'house')
        : null,
    ),
    ratingCell(entry),
    strengthCell(entry.strength),
    el('td', { class: 'num' }, String(entry.games)),
    el(
      'td',
      { class: 'num' },
      el('span', { class: 'win' }, String(entry.wins)),
      ' / ',
      el('span', { class: 'draw' }, String(entry.draws)),
      ' / ',
      el('span', { class: 'loss' }, String(entry.losses)),
    ),
    el(
      'td',
      {},
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
  const body = $('lb-body');
  // A refresh rebuilds the rows: remember which bot link had focus and give it back.
  const focusedBot = body.contains(document.activeElement)
    ? document.activeElement.closest('tr')?.dataset.botId
    : undefined;
  const now = Date.now();
  replaceChildren(
    body,
    sorted(state.entries).map((entry) => row(entry, now)),
  );
  if (focusedBot) body.querySelector(`tr[data-bot-id="${CSS.escape(focusedBot)}"] a`)?.focus();

  $('lb-empty').hidden = state.entries.length > 0;
  const more = state.total > state.entries.length;
  $('lb-more-wrap').hidden = !more;
  $('lb-count').textContent = `Showing ${state.entries.length} of ${state.total} bots.`;
  $('lb-strength-at').textContent = state.strengthComputedAt
    ? `Last computed ${formatDateTime(state.strengthComputedAt)}.`
    : '';
}

async function refresh() {
  clearTimeout(state.timer);
  try {
    const page = await api(`/v1/leaderboard?limit=${Math.min(state.limit, PAGE)}`);
    let { items } = page;
    // Past the first page (after "Show more"), fetch the further pages by offset.
    while (items.length < Math.min(state.limit, page.total) && items.length % PAGE === 0) {
      const next = await api(`/v1/leaderboard?limit=${PAGE}&offset=${items.length}`);
      if (next.items.length === 0) break;
      items = items.concat(next.items);
    }
    state.failures = 0;
    $('lb-error').hidden = true;
    const json = JSON.stringify([items, page.total, page.strengthComputedAt]);
    const changed = json !== state.lastJson;
    state.lastJson = json;
    state.entries = items;
    state.total = page.total;
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

readSortFromUrl();
renderHeader();
document.querySelector('#leaderboard thead').addEventListener('click', onSortClick);
$('lb-more').addEventListener('click', () => {
  state.limit += PAGE;
  refresh();
});
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refresh();
});
refresh();
