// A bot's page: its profile (GET /v1/bots/{id}), rating chart (GET /v1/bots/{id}/ratings) and recent
// matches (GET /v1/matches?bot={id}, with "older matches" by cursor); "Play this bot" (the /play page
// with it as the opponent) and "Challenge with my bot" (POST /v1/matches with a pasted bot token,
// which stays in this page's memory: never stored, never put in the address).
import { showOpenEvents } from './bot-entries.js';
import { ratingChart } from './chart.js';
import {
  ApiError,
  api,
  apiWithToken,
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
    [
      'Kind',
      bot.guest ? 'guest (a person playing from a browser, never ranked)' : (KIND_TEXT[bot.kind] ?? bot.kind),
    ],
    ['Status', bot.status],
    ['Registered', formatDateTime(bot.createdAt)],
    ['Last played', bot.lastPlayedAt ? formatDateTime(bot.lastPlayedAt) : 'never'],
    ['Id', el('code', { class: 'id' }, bot.id)],
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
        ` from ${formatDateTime(bot.paused.since)} until ${formatDateTime(bot.paused.until)}: `,
        bot.paused.reason,
      ),
      el(
        'p',
        {},
        bot.paused.level > 1
          ? `Pause ${bot.paused.level} in a row: each one lasts four times the last. `
          : '',
        'The pause ends by itself; a change to the bot does not end it. Fix what faulted meanwhile: its next fault pauses it again, a clean match ends the streak.',
      ),
      bot.paused.detail
        ? el('p', {}, 'Last fault (only you see this): ', el('code', {}, bot.paused.detail))
        : null,
    );
    $('paused').hidden = false;
  }
  replaceChildren($('profile'), profileRows(bot));
  renderPlay(bot);
  $('bot').hidden = false;
}

/** Why nobody can play this bot now, or null when anyone may. */
function closedReason(bot) {
  if (bot.status !== 'active') return 'This bot is retired: it plays no more games.';
  if (bot.guest) return 'This is a guest: a person playing from a browser, who takes no challenges.';
  if (bot.paused)
    return `This bot is paused: it takes no challenges until ${formatDateTime(bot.paused.until)}.`;
  if (!bot.acceptsChallenges) return 'This bot does not accept challenges.';
  return null;
}

function renderPlay(bot) {
  const closed = closedReason(bot);
  $('play-closed').textContent = closed ?? '';
  $('play-closed').hidden = closed === null;
  $('play-open').hidden = closed !== null;
  $('play-link').href = `/play?opponent=${encodeURIComponent(bot.id)}`;
  $('play').hidden = false;
}

function challengeError(message) {
  const box = $('challenge-error');
  box.textContent = message;
  box.hidden = false;
  box.focus();
}

/**
 * Creates an unrated match between the pasted token's bot and this one, then opens it. A refusal
 * (no consent, a pause, the cap of active challenges, a bad token) shows the problem's message.
 */
async function challenge(event) {
  event.preventDefault();
  $('challenge-error').hidden = true;
  const input = $('challenge-token');
  const token = input.value.trim();
  if (!token) return challengeError("Paste your bot's token first.");
  const button = $('challenge-submit');
  button.disabled = true;
  try {
    const me = await apiWithToken('/v1/bots/me', token);
    if (me.id === botId) return challengeError('That is this bot’s own token: a bot cannot play itself.');
    const colour = $('challenge-colour').value === 'white' ? 'white' : 'black';
    const match = await apiWithToken('/v1/matches', token, {
      method: 'POST',
      body: colour === 'black' ? { black: me.id, white: botId } : { black: botId, white: me.id },
    });
    input.value = '';
    location.assign(matchHref(match.id));
  } catch (error) {
    challengeError(
      error instanceof ApiError && error.status === 401
        ? 'That token is not valid: check that you pasted the whole of it.'
        : errorMessage(error),
    );
  } finally {
    button.disabled = false;
  }
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
    await Promise.all([loadMatches(), showOpenEvents(bot)]);
  } catch (error) {
    fail(error);
  }
}

$('challenge-form').addEventListener('submit', challenge);
$('matches-more').addEventListener('click', async () => {
  try {
    await loadMatches();
  } catch (error) {
    fail(error);
  }
});
main();
