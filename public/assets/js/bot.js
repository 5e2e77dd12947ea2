// A bot's page: its profile (GET /v1/bots/{id}), rating chart (GET /v1/bots/{id}/ratings) and recent
// matches (GET /v1/matches?bot={id}, with "older matches" by cursor).
import { ratingChart } from './chart.js';
import {
  api,
  botLink,
  chip,
  el,
  errorMessage,
  formatDateTime,
  formatDelta,
  formatRating,
  idFromLocation,
  matchHref,
  otherColor,
  replaceChildren,
  timeEl,
} from './common.js';

const $ = (id) => document.getElementById(id);
const botId = idFromLocation();
const RATINGS_LIMIT = 200;
const KIND_TEXT = {
  push: 'push (the arena calls its URL)',
  pull: 'pull (plays through the API)',
  house: "house (the arena's own sparring partner, played by its workers)",
};
let nextCursor = null;

function profileRows(bot) {
  const rows = [
    [
      'Elo rating',
      [formatRating(bot.rating), bot.provisional ? el('span', { class: 'badge' }, 'provisional') : null],
    ],
    [
      'Record',
      `${bot.games} ${bot.games === 1 ? 'game' : 'games'}: ${bot.wins} won, ${bot.draws} drawn, ${bot.losses} lost`,
    ],
    ['Kind', KIND_TEXT[bot.kind] ?? bot.kind],
    ['Status', bot.status],
    ['Registered', formatDateTime(bot.createdAt)],
    ['Last played', bot.lastPlayedAt ? formatDateTime(bot.lastPlayedAt) : 'never'],
    ['Id', el('code', {}, bot.id)],
  ];
  return rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value)));
}

function renderBot(bot) {
  document.title = `${bot.name} · Reversi Arena`;
  replaceChildren(
    $('title'),
    bot.name,
    bot.status === 'retired' ? el('span', { class: 'badge' }, 'retired') : null,
  );
  $('description').textContent = bot.description ?? '';
  $('description').hidden = !bot.description;
  if (bot.paused) {
    replaceChildren(
      $('paused'),
      el(
        'p',
        {},
        el('strong', {}, 'Matchmaking paused'),
        ` since ${formatDateTime(bot.paused.since)}: `,
        bot.paused.reason,
      ),
      el('p', {}, 'Any change to the bot (for example a fixed URL, with PATCH /v1/bots/{id}) resumes it.'),
    );
    $('paused').hidden = false;
  }
  replaceChildren($('profile'), profileRows(bot));
  $('bot').hidden = false;
}

function renderChart(history) {
  const box = $('chart');
  if (history.items.length === 0) {
    $('chart-empty').hidden = false;
    box.hidden = true;
    return;
  }
  $('chart-legend').hidden = false;
  if (history.items.length >= RATINGS_LIMIT) {
    $('chart-note').textContent =
      `The latest ${RATINGS_LIMIT} rated games; game 0 is the rating before them.`;
    $('chart-note').hidden = false;
  }
  let drawnWidth = 0;
  const draw = () => {
    const width = box.clientWidth;
    if (width === 0 || Math.abs(width - drawnWidth) < 1) return;
    drawnWidth = width;
    replaceChildren(box, ratingChart(history.items, width));
  };
  draw();
  new ResizeObserver(draw).observe(box);
}

function resultFor(match, color) {
  if (match.status === 'queued') return { text: 'queued', cls: 'muted' };
  if (match.status === 'running' || !match.result) return { text: 'playing', cls: 'muted' };
  const { winner, reason } = match.result;
  if (reason === 'aborted') return { text: 'aborted', cls: 'draw' };
  if (winner === null) return { text: 'draw', cls: 'draw' };
  const won = winner === color;
  const why = reason === 'completed' ? '' : won ? ` (opponent: ${reason})` : ` (${reason})`;
  return { text: `${won ? 'win' : 'loss'}${why}`, cls: won ? 'win' : 'loss' };
}

function matchRow(match) {
  const color = match.black.id === botId ? 'black' : 'white';
  const opponent = match[otherColor(color)];
  const result = resultFor(match, color);
  const discs = match.result ? match.result.discs : null;
  const rating = match.ratings?.[color];
  const when = match.finishedAt ?? match.startedAt ?? match.createdAt;
  const action = match.status === 'running' ? 'Watch live' : match.status === 'queued' ? 'View' : 'Replay';
  return el(
    'tr',
    {},
    el(
      'td',
      {},
      el(
        'a',
        { href: matchHref(match.id) },
        action,
        el('span', { class: 'visually-hidden' }, ` the match against ${opponent.name}`),
      ),
    ),
    el('td', {}, botLink(opponent)),
    el('td', {}, chip(color), ` ${color}`),
    el('td', {}, el('span', { class: result.cls }, result.text)),
    el('td', { class: 'num' }, discs ? `${discs[color]}–${discs[otherColor(color)]}` : '—'),
    el('td', { class: 'num' }, rating ? formatDelta(rating.after - rating.before) : '—'),
    el('td', {}, timeEl(when)),
  );
}

async function loadMatches() {
  const query = new URLSearchParams({ bot: botId, limit: '20' });
  if (nextCursor) query.set('cursor', nextCursor);
  const page = await api(`/v1/matches?${query}`);
  $('matches').append(...page.items.map(matchRow));
  nextCursor = page.nextCursor;
  const any = $('matches').children.length > 0;
  $('matches-empty').hidden = any;
  $('matches-wrap').hidden = !any;
  $('matches-more-wrap').hidden = !nextCursor;
}

function fail(error) {
  const box = $('load-error');
  box.textContent = error?.status === 404 ? `There is no bot with the id ${botId}.` : errorMessage(error);
  box.hidden = false;
}

async function main() {
  if (!botId) return fail(null);
  const id = encodeURIComponent(botId);
  try {
    const [bot, history] = await Promise.all([
      api(`/v1/bots/${id}`),
      api(`/v1/bots/${id}/ratings?limit=${RATINGS_LIMIT}`),
    ]);
    renderBot(bot);
    renderChart(history);
    await loadMatches();
  } catch (error) {
    fail(error);
  }
}

$('matches-more').addEventListener('click', async () => {
  try {
    await loadMatches();
  } catch (error) {
    fail(error);
  }
});
main();
