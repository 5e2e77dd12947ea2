// A solo game on the match page. The page replays a two-player game from its recorded flips; a solo
// game's records do not say which tokens each move turned up, so it is not replayed: its board is
// shown as the arena's state has it (GET /v1/matches/{id}/state, public: turned tokens show their
// colour and value, face-down ones do not), beside the move list with each disc's colour. A game
// still being played is read again every second.

import { boardGrid } from './board.js';
import {
  api,
  botLink,
  chip,
  el,
  errorMessage,
  formatDateTime,
  formatDuration,
  REASON_TEXT,
  replaceChildren,
  timeControlText,
} from './common.js';
import { squareName } from './replay.js';
import { count, paintSquare, scoringText, soloSquares, splitFlips, tokenWords } from './solo-view.js';

const POLL_MS = 1000;
const HIDDEN_POLL_MS = 5000;
const $ = (id) => document.getElementById(id);
const isLive = (match) => match.status === 'queued' || match.status === 'running';

/** The board of spans, drawn once; answers `render(state, marks)`. */
function createSoloBoard(container) {
  const cells = boardGrid(container).map(({ cell }) => cell);
  return (state, marks) => {
    const squares = soloSquares(state);
    for (let index = 0; index < 64; index++) {
      const cell = cells[index];
      paintSquare(cell.firstChild, squares[index]);
      cell.classList.toggle('placed', cell.dataset.square === marks.placed);
      cell.classList.toggle('flipped', marks.discs.includes(cell.dataset.square));
      cell.classList.toggle('captured', marks.captures.includes(cell.dataset.square));
    }
    return squares;
  };
}

/** The board in words, for the screen reader's view of the board image. */
function describe(state, squares) {
  const list = (test, words) =>
    squares
      .map((what, index) => (test(what) ? words(squareName(index), what) : null))
      .filter(Boolean)
      .join(', ') || 'none';
  const disc = (colour) => (what) => what.kind === 'disc' && what.colour === colour;
  return [
    `Board after ${count(state.history.length, 'move')}.`,
    `Black discs: ${list(disc('black'), (square) => square)}.`,
    `White discs: ${list(disc('white'), (square) => square)}.`,
    `Face-down tokens: ${list(
      (what) => what.kind === 'token' && what.hidden,
      (square) => square,
    )}.`,
    `Turned tokens: ${list(
      (what) => what.kind === 'token' && !what.hidden,
      (square, what) => `${square} ${tokenWords(what)}`,
    )}.`,
  ].join(' ');
}

function outcome(match, state) {
  const score = state ? ` Score ${state.score}.` : '';
  if (match.status === 'queued')
    return ['', [el('strong', {}, 'Queued. '), 'Waiting for a worker to start it.']];
  if (isLive(match) || !match.result) {
    return [
      '',
      [
        el('strong', {}, 'Live. '),
        `${count(match.moves.length, 'move')} played.${score} The board follows the game.`,
      ],
    ];
  }
  const { reason } = match.result;
  if (reason === 'aborted')
    return ['warn', [el('strong', {}, 'Aborted. '), `The arena stopped the game.${score}`]];
  const kind = reason === 'completed' ? 'ok' : 'error';
  return [
    kind,
    [
      el('strong', {}, `Finished.${score}`),
      ' Reason: ',
      el('strong', {}, reason),
      ` — ${REASON_TEXT[reason] ?? reason}.`,
    ],
  ];
}

/** A move's row: its disc's colour, its square, the discs it turned over (+ the tokens it took). */
function moveRow(move, split) {
  const taken = split.captures.length;
  const words = `${count(split.discs.length, 'disc')} turned over${taken > 0 ? `, ${count(taken, 'token')} captured` : ''}`;
  return el(
    'tr',
    { dataset: { ply: String(move.ply) } },
    el('th', { scope: 'row', class: 'num' }, String(move.ply)),
    el('td', {}, chip(move.colour), ` ${move.colour}`),
    el('td', {}, el('code', {}, move.square)),
    el(
      'td',
      { class: 'num', title: `${words}: ${move.flips.join(', ')}` },
      el('span', { 'aria-hidden': 'true' }, `${split.discs.length}${taken > 0 ? ` +${taken}` : ''}`),
      el('span', { class: 'visually-hidden' }, words),
    ),
    el('td', { class: 'num' }, `${move.latencyMs} ms`),
  );
}

function details(match) {
  const rows = [
    ['Player', botLink(match.black)],
    ['Status', match.status],
    ['Created', formatDateTime(match.createdAt)],
    ['Started', match.startedAt ? formatDateTime(match.startedAt) : '—'],
    ['Finished', match.finishedAt ? formatDateTime(match.finishedAt) : '—'],
    ['Layout', String(match.rules.layout)],
    ['Scoring', match.rules.scoring],
    ['Time limit', `${formatDuration(match.rules.timeLimitMs)} a move`],
    ['Overage bank', formatDuration(match.rules.overageMs)],
    ['Rated', 'no'],
    ['Match id', el('code', { class: 'id' }, match.id)],
  ];
  return rows.map(([term, value]) => el('div', {}, el('dt', {}, term), el('dd', {}, value)));
}

/** Sets a live region's text only when it changes, so that it speaks once per change. */
function say(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/**
 * Shows the solo game `match` (its document) on the match page instead of the replay, and reads it
 * again while it is played.
 */
export function followSoloMatch(match) {
  const render = createSoloBoard($('board'));
  for (const selector of ['.replay-area .controls', '.replay-area .scrubber', '.replay-area .kbd-help']) {
    document.querySelector(selector).hidden = true;
  }
  document.querySelector('table.moves thead th:nth-child(2)').textContent = 'Disc';
  document.title = `Solo puzzle, ${match.black.name} · Reversi Arena`;
  replaceChildren(
    $('title'),
    el('span', { class: 'players' }, match.black.name),
    ` · solo puzzle, layout ${match.rules.layout}`,
  );
  $('rules').textContent = [
    'Solo puzzle',
    `layout ${match.rules.layout}`,
    `scored by ${scoringText(match.rules.scoring)}`,
    timeControlText(match.rules),
    'unrated',
  ].join(' · ');
  $('match').hidden = false;
  let failures = 0;
  let seen = '';

  const show = (current, state) => {
    const key = JSON.stringify([current.status, current.moves.length, state?.ply, state?.status]);
    if (key === seen) return;
    seen = key;
    const splits = splitFlips(current.moves);
    const last = current.moves.length - 1;
    const [kind, nodes] = outcome(current, state);
    $('outcome').className = `notice ${kind}`;
    replaceChildren($('outcome'), el('p', {}, nodes));
    if (state) {
      const marks =
        last >= 0 ? { placed: current.moves[last].square, ...splits[last] } : { discs: [], captures: [] };
      // The state may be a move ahead of the match document read just before it: mark no move then.
      const squares = render(
        state,
        state.history.length === current.moves.length ? marks : { discs: [], captures: [] },
      );
      $('board-label').textContent = describe(state, squares);
      replaceChildren(
        $('score'),
        el('span', {}, `Score ${state.score}`),
        el('span', {}, `${count(state.captured.length, 'token')} captured`),
      );
    }
    say(
      $('ply-info'),
      `The position after ${count(current.moves.length, 'move')}. A solo game is shown as it stands, not replayed move by move.`,
    );
    replaceChildren(
      $('moves'),
      current.moves.map((move, index) => moveRow(move, splits[index])),
    );
    $('no-moves').hidden = current.moves.length > 0;
    $('moves-scroll').hidden = current.moves.length === 0;
    replaceChildren($('details'), details(current));
  };

  const read = async () => {
    try {
      const id = encodeURIComponent(match.id);
      const current = await api(`/v1/matches/${id}`);
      const state = await api(`/v1/matches/${id}/state`).catch(() => null);
      failures = 0;
      $('load-error').hidden = true;
      show(current, state);
      if (!isLive(current)) return;
    } catch (error) {
      failures++;
      $('load-error').textContent = errorMessage(error);
      $('load-error').hidden = false;
    }
    setTimeout(read, document.hidden ? HIDDEN_POLL_MS : POLL_MS * 2 ** Math.min(failures, 5));
  };
  read();
}
