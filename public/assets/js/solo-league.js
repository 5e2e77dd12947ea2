// The solo league page (/solo): a week of the puzzle league from GET /v1/solo/leaderboard, the running
// week by default or the one of `?week=` (any day of it: the page moves to its Monday), with its
// layouts, dates and standings. The running week refreshes by itself.
import {
  api,
  botLink,
  el,
  errorMessage,
  formatDateTime,
  formatDuration,
  replaceChildren,
  timeControlText,
} from './common.js';
import { scoringText } from './solo-view.js';

const REFRESH_MS = 15_000;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
const $ = (id) => document.getElementById(id);

/** `YYYY-MM-DD` of a UTC time. */
const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);

/**
 * The week asked for in the address, as its Monday (`YYYY-MM-DD`); null for the running week. A day
 * that is not a Monday stands for its week; something that is not a date is left to the API to refuse.
 */
function weekFromUrl() {
  const week = new URLSearchParams(location.search).get('week');
  if (!week) return null;
  const at = Date.parse(`${week}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(week) || Number.isNaN(at)) return week;
  const monday = dayOf(at - ((new Date(at).getUTCDay() + 6) % 7) * DAY_MS);
  if (monday !== week) {
    const url = new URL(location.href);
    url.searchParams.set('week', monday);
    history.replaceState(null, '', url);
  }
  return monday;
}

const weekHref = (week) => `/solo?week=${encodeURIComponent(week)}`;

/**
 * Where `board`'s week stands beside the running one (GET /v1/solo/league): 'running', 'ended' or
 * 'to come'. The arena's clock decides, not this browser's.
 */
function phase(board, running) {
  if (board.week === running.week) return 'running';
  return Date.parse(board.startsAt) > Date.parse(running.startsAt) ? 'to come' : 'ended';
}

function renderWeek(board, when) {
  const starts = Date.parse(board.startsAt);
  $('week-title').textContent = `The week of ${board.week}${when === 'running' ? ' (running)' : ''}`;
  replaceChildren(
    $('week-dates'),
    'From ',
    el('time', { datetime: board.startsAt }, formatDateTime(board.startsAt)),
    ' to ',
    el('time', { datetime: board.endsAt }, formatDateTime(board.endsAt)),
    when === 'running' ? ': running now.' : when === 'ended' ? ': ended.' : ': to come.',
  );
  $('week-rules').textContent =
    `${board.layouts.length} games a bot, scored by ${scoringText(board.scoring)}; ${timeControlText(board)}.`;
  $('week').value = board.week;
  $('prev-week').href = weekHref(dayOf(starts - WEEK_MS));
  $('prev-week').hidden = false;
  $('next-week').href = weekHref(dayOf(starts + WEEK_MS));
  $('next-week').hidden = when !== 'ended';
  const practice = when === 'ended';
  $('layouts-note').textContent = practice
    ? 'Each opens on the Play page, to practise it as the bots played it.'
    : `Published, but open for practice only once the week ends (${formatDateTime(board.endsAt)}).`;
  replaceChildren(
    $('layouts'),
    board.layouts.map((layout) =>
      el(
        'li',
        {},
        practice
          ? el(
              'a',
              {
                href: `/play?layout=${layout}&scoring=${encodeURIComponent(board.scoring)}`,
                'aria-label': `Practise layout ${layout}`,
              },
              el('code', {}, String(layout)),
            )
          : el('code', {}, String(layout)),
      ),
    ),
  );
}

function row(item) {
  return el(
    'tr',
    { dataset: { botId: item.bot.id } },
    el('td', { class: 'num rank' }, String(item.rank)),
    el(
      'th',
      { scope: 'row', class: 'name' },
      botLink(item.bot),
      item.house ? el('span', { class: 'badge house', title: "One of the arena's own bots" }, 'house') : null,
    ),
    el('td', { class: 'num score' }, String(item.score)),
    el('td', { class: 'num time-used' }, formatDuration(item.timeUsedMs)),
    el('td', { class: 'num played' }, `${item.played} / ${item.games}`),
  );
}

function renderStandings(board) {
  replaceChildren($('standings'), board.items.map(row));
  $('standings-wrap').hidden = board.items.length === 0;
  $('standings-empty').hidden = board.items.length > 0;
  $('league-status').textContent =
    board.items.length === 1 ? '1 bot entered.' : `${board.items.length} bots entered.`;
}

const state = { week: weekFromUrl(), lastJson: '', timer: 0 };

async function load() {
  clearTimeout(state.timer);
  const query = state.week === null ? '' : `?week=${encodeURIComponent(state.week)}`;
  let board;
  let running;
  try {
    [board, running] = await Promise.all([api(`/v1/solo/leaderboard${query}`), api('/v1/solo/league')]);
  } catch (error) {
    $('league-error').textContent = errorMessage(error);
    $('league-error').hidden = false;
    $('league-status').textContent = '';
    // A week that does not exist stays so; a failure to reach the arena is tried again.
    if (!(error?.status >= 400 && error.status < 500)) state.timer = setTimeout(load, REFRESH_MS);
    return;
  }
  $('league-error').hidden = true;
  const when = phase(board, running);
  const json = JSON.stringify([board, when]);
  if (json !== state.lastJson) {
    state.lastJson = json;
    renderWeek(board, when);
    renderStandings(board);
    $('league').hidden = false;
    document.title = `Solo league, week of ${board.week} · Reversi Arena`;
  }
  if (when !== 'ended') state.timer = setTimeout(load, REFRESH_MS);
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden) load();
});
load();
