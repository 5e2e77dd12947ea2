// The live page: GET /v1/matches/live every few seconds (one shared read a second on the server), and
// each row's clock counted down in between from the deadline the arena set. A match that ends leaves
// the list at the next read.
import { formatLeft, serverOffset, timeLeft } from './clock.js';
import { api, botLink, chip, el, errorMessage, formatRating, formatTime, matchHref } from './common.js';

const REFRESH_MS = 3000;
const HIDDEN_REFRESH_MS = 15_000;
const TICK_MS = 200;
const $ = (id) => document.getElementById(id);

const state = { offset: 0, timer: 0, failures: 0, count: -1 };

const rating = (player) => (player.rating === null ? '' : ` (${formatRating(player.rating)})`);

function playerCell(color, player) {
  return el('td', {}, el('span', { class: 'players' }, chip(color), ' ', botLink(player), rating(player)));
}

function toMoveCell(match) {
  return match.toMove ? [chip(match.toMove), ` ${match.toMove}`] : ['—'];
}

function row(match) {
  return el(
    'tr',
    { dataset: { matchId: match.id } },
    el(
      'th',
      { scope: 'row' },
      el('a', { href: matchHref(match.id) }, `${match.black.name} vs ${match.white.name}`),
    ),
    playerCell('black', match.black),
    playerCell('white', match.white),
    el('td', { class: 'num ply' }, String(match.ply)),
    el('td', { class: 'to-move' }, toMoveCell(match)),
    el('td', { class: 'num time-left' }),
  );
}

/** Fills the cells that change from one read to the next (a new row gets them too). */
function fill(tr, match) {
  tr.querySelector('.ply').textContent = String(match.ply);
  tr.querySelector('.to-move').replaceChildren(...toMoveCell(match));
  const clock = tr.querySelector('.time-left');
  if (match.deadline) clock.dataset.deadline = match.deadline;
  else delete clock.dataset.deadline;
}

function tick() {
  for (const cell of document.querySelectorAll('#live-body .time-left')) {
    const deadline = cell.dataset.deadline;
    cell.textContent = deadline ? formatLeft(timeLeft(deadline, state.offset)) : '—';
  }
}

/**
 * Updates the table in place: rows that stay are not rebuilt or moved (a focused link keeps its
 * focus), rows of ended matches go, new ones come in at their place (newest first).
 */
function render(items) {
  const body = $('live-body');
  const kept = new Map([...body.children].map((tr) => [tr.dataset.matchId, tr]));
  const wanted = new Set(items.map((match) => match.id));
  for (const [id, tr] of kept) if (!wanted.has(id)) tr.remove();
  items.forEach((match, i) => {
    const tr = kept.get(match.id) ?? row(match);
    fill(tr, match);
    if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] ?? null);
  });
  tick();
  $('live-wrap').hidden = items.length === 0;
  $('live-empty').hidden = items.length > 0;
  // The status is a live region: it speaks only when the count changes.
  if (items.length !== state.count) {
    state.count = items.length;
    $('live-status').textContent =
      items.length === 0
        ? 'No match being played.'
        : `${items.length} ${items.length === 1 ? 'match' : 'matches'} being played.`;
  }
  $('live-checked').textContent = `Updated ${formatTime(new Date())}`;
}

async function refresh() {
  clearTimeout(state.timer);
  try {
    const list = await api('/v1/matches/live?limit=100');
    state.offset = serverOffset(list.serverTime);
    state.failures = 0;
    $('live-error').hidden = true;
    render(list.items);
  } catch (error) {
    state.failures++;
    $('live-error').textContent = errorMessage(error);
    $('live-error').hidden = false;
    if (state.count === -1) $('live-status').textContent = '';
  }
  const delay = document.hidden ? HIDDEN_REFRESH_MS : REFRESH_MS * 2 ** Math.min(state.failures, 4);
  state.timer = setTimeout(refresh, delay);
}

setInterval(tick, TICK_MS);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) refresh();
});
refresh();
