// A tournament's page: GET /v1/tournaments/{id}, its standings, crosstable and rounds (with a link to
// every match), refreshed every few seconds until it has finished; while it is open, a form enters a
// bot with its token (event-entry.js) and its start, if scheduled, is counted down.
import {
  api,
  botLink,
  chip,
  countdownEl,
  el,
  errorMessage,
  formatDateTime,
  formatRating,
  formatTime,
  matchHref,
  replaceChildren,
  tickCountdowns,
  timeControlText,
} from './common.js';
import { changeEntry, showEntryOutcome } from './event-entry.js';

const REFRESH_MS = 3000;
const $ = (id) => document.getElementById(id);
const FORMAT_TEXT = { 'round-robin': 'round robin', swiss: 'Swiss', gauntlet: 'gauntlet' };
const TIEBREAK_TEXT = { 'sonneborn-berger': 'Sonneborn–Berger', buchholz: 'Buchholz' };
const RESULT_TEXT = { white: 'white won', black: 'black won', draw: 'draw' };

/** The id in /tournaments/<id>. */
const tournamentId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
let lastJson = '';
let lastStatus = '';
/** The next refresh: one at a time, however refreshes are asked for. */
let refreshTimer = null;
const refreshIn = (ms) => {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, ms);
};

/** ½ for halves, as score sheets print them. */
function formatPoints(value) {
  const whole = Math.floor(value);
  const half = value - whole >= 0.5;
  if (!half) return String(whole);
  return whole === 0 ? '½' : `${whole}½`;
}

function profile(t) {
  const rows = [
    ['Format', FORMAT_TEXT[t.format] ?? t.format],
    ['Status', t.status],
    ['Rounds', t.roundCount === null ? 'set at the start' : `${t.rounds.length} of ${t.roundCount} paired`],
    ['Entrants', String(t.entrantCount)],
    ['Games per pairing', t.gamesPerPairing === 2 ? '2 (colours swapped)' : '1'],
    ['Openings', t.openings === 'balanced' ? 'balanced, drawn per pairing' : 'standard start'],
    ['Rated', t.rated ? 'yes' : 'no'],
    ['Time', timeControlText(t.rules)],
    ['Created', formatDateTime(t.createdAt)],
  ];
  if (t.startsAt) {
    const when = [formatDateTime(t.startsAt)];
    if (t.status === 'open') when.push(' (', countdownEl(t.startsAt), ')');
    rows.push(['Starts', el('span', {}, ...when)], ['Needs', `${t.minEntrants} active entrants`]);
  }
  if (t.challenger) rows.splice(1, 0, ['Challenger', botLink(t.challenger)]);
  if (t.finishedAt)
    rows.push([t.status === 'cancelled' ? 'Cancelled' : 'Finished', formatDateTime(t.finishedAt)]);
  return rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value)));
}

function standingsRows(t) {
  const strength = new Map(t.strengths.map((s) => [s.bot.id, s]));
  return t.standings.map((row) => {
    const s = strength.get(row.bot.id);
    return el(
      'tr',
      { dataset: { botId: row.bot.id } },
      el('td', { class: 'num' }, String(row.rank)),
      el('th', { scope: 'row' }, botLink(row.bot)),
      el('td', { class: 'num' }, formatPoints(row.points)),
      el('td', { class: 'num' }, String(row.games)),
      el(
        'td',
        { class: 'num' },
        el('span', { class: 'win' }, String(row.wins)),
        ' / ',
        el('span', { class: 'draw' }, String(row.draws)),
        ' / ',
        el('span', { class: 'loss' }, String(row.losses)),
      ),
      el('td', { class: 'num' }, String(row.tiebreak)),
      el(
        'td',
        { class: 'num' },
        s
          ? `${formatRating(s.rating)} [${formatRating(s.lower)}–${formatRating(s.upper)}]`
          : el('span', { title: 'No games yet' }, '—'),
      ),
    );
  });
}

function crosstable(t) {
  const { bots, cells } = t.crosstable;
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      el('th', { scope: 'col' }, el('span', { class: 'visually-hidden' }, 'Bot')),
      bots.map((bot, j) => el('th', { scope: 'col', class: 'num', title: bot.name }, String(j + 1))),
    ),
  );
  const body = el(
    'tbody',
    {},
    bots.map((bot, i) =>
      el(
        'tr',
        {},
        el('th', { scope: 'row' }, `${i + 1}. `, botLink(bot)),
        cells[i].map((games, j) =>
          el(
            'td',
            { class: i === j ? 'self' : null },
            games.map((game) =>
              el(
                'span',
                { class: 'score', title: `${bot.name} as ${game.side}` },
                chip(game.side),
                formatPoints(game.score),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  return [head, body];
}

function gameRow(game) {
  const status =
    game.status === 'not-played'
      ? 'not played (withdrawn)'
      : game.result
        ? RESULT_TEXT[game.result]
        : game.status;
  return el(
    'tr',
    {},
    el('td', {}, chip('white'), ' ', botLink(game.white)),
    el('td', {}, chip('black'), ' ', botLink(game.black)),
    el('td', {}, game.opening ? el('code', {}, game.opening) : 'standard'),
    el('td', {}, status),
    el(
      'td',
      {},
      game.matchId
        ? el(
            'a',
            { href: matchHref(game.matchId) },
            game.status === 'running' ? 'Watch live' : game.status === 'queued' ? 'View' : 'Replay',
            el('span', { class: 'visually-hidden' }, ` ${game.white.name} against ${game.black.name}`),
          )
        : '—',
    ),
  );
}

function roundSection(round) {
  return el(
    'section',
    { class: 'round', 'aria-labelledby': `round-${round.number}` },
    el('h3', { id: `round-${round.number}` }, `Round ${round.number}`),
    el(
      'div',
      { class: 'table-scroll' },
      el(
        'table',
        { class: 'data' },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ['White', 'Black', 'Opening', 'Result', 'Match'].map((name) => el('th', { scope: 'col' }, name)),
          ),
        ),
        el('tbody', {}, round.games.map(gameRow)),
      ),
    ),
    round.bye ? el('p', { class: 'bye muted' }, 'Sat out: ', botLink(round.bye)) : null,
  );
}

function render(t) {
  document.title = `${t.name} · Reversi Arena`;
  $('title').textContent = t.name;
  replaceChildren($('profile'), profile(t));
  $('tiebreak-head').textContent = TIEBREAK_TEXT[t.tiebreak] ?? 'Tie-break';
  $('standings-note').textContent =
    `Win 1, draw ½${t.format === 'swiss' ? ', bye 1' : ''}; equal points are ordered by ${TIEBREAK_TEXT[t.tiebreak]}.`;
  replaceChildren($('standings-body'), standingsRows(t));
  replaceChildren($('crosstable'), crosstable(t));
  $('rounds-empty').hidden = t.rounds.length > 0;
  replaceChildren($('rounds'), [...t.rounds].reverse().map(roundSection));
  $('entry-form').hidden = t.status !== 'open';
  $('tournament').hidden = false;
}

function statusText(t) {
  if (t.status === 'open' && t.startsAt) {
    return `Open for entries until ${formatDateTime(t.startsAt)}; it starts then with ${t.minEntrants} active entrants or more.`;
  }
  if (t.status === 'open') return 'Open for entries.';
  if (t.status === 'finished') return 'Finished.';
  if (t.status === 'cancelled') return `Cancelled: fewer than ${t.minEntrants} active entrants at its start.`;
  return `Running: round ${t.rounds.length}${t.roundCount ? ` of ${t.roundCount}` : ''}.`;
}

async function refresh() {
  try {
    const t = await api(`/v1/tournaments/${encodeURIComponent(tournamentId)}`);
    $('load-error').hidden = true;
    const json = JSON.stringify(t);
    if (json !== lastJson) {
      lastJson = json;
      render(t);
    }
    // The live region speaks only when the status changes, not on every poll.
    const status = statusText(t);
    if (status !== lastStatus) {
      lastStatus = status;
      $('t-status').textContent = status;
    }
    const over = t.status === 'finished' || t.status === 'cancelled';
    $('t-checked').textContent = over ? '' : `checked ${formatTime(new Date())}`;
    if (!over) refreshIn(REFRESH_MS);
  } catch (error) {
    const box = $('load-error');
    box.textContent =
      error?.status === 404 ? `There is no tournament with the id ${tournamentId}.` : errorMessage(error);
    box.hidden = false;
    if (error?.status !== 404) refreshIn(REFRESH_MS * 2);
  }
}

async function changeOwnEntry(leave) {
  const buttons = [$('entry-submit'), $('entry-leave')];
  for (const button of buttons) button.disabled = true;
  const boxes = { done: $('entry-done'), failed: $('entry-error') };
  try {
    const message = await changeEntry(tournamentId, $('entry-token').value.trim(), { leave });
    showEntryOutcome(boxes, { message });
    refresh();
  } catch (error) {
    showEntryOutcome(boxes, { error: error.message });
  } finally {
    for (const button of buttons) button.disabled = false;
  }
}

$('entry-form').addEventListener('submit', (event) => {
  event.preventDefault();
  changeOwnEntry(false);
});
$('entry-leave').addEventListener('click', () => changeOwnEntry(true));
tickCountdowns();
refresh();
