// The match page: GET /v1/matches/{id}, replayed from the start position with the recorded flips;
// step/play controls and keys; polled every second while the match is queued or running.
import { createBoard, describeBoard } from './board.js';
import { api, chip, el, errorMessage, idFromLocation, replaceChildren } from './common.js';
import { details, outcome, rulesText } from './match-text.js';
import { countDiscs, replayBoards, toMoveAfter } from './replay.js';

const POLL_MS = 1000;
const HIDDEN_POLL_MS = 5000;
const $ = (id) => document.getElementById(id);

const matchId = idFromLocation();
const render = createBoard($('board'));
const state = {
  /** @type {any} */ match: null,
  boards: replayBoards([]),
  ply: 0,
  playing: false,
  playTimer: 0,
  pollTimer: 0,
  failures: 0,
  outcomeKey: '',
};

const lastPly = () => state.match?.moves.length ?? 0;
const isLive = (match) => match.status === 'queued' || match.status === 'running';

/** The ply asked for in the URL (`?ply=12`), or null. */
function plyFromUrl() {
  const value = new URLSearchParams(location.search).get('ply');
  return value !== null && /^\d+$/.test(value) ? Number(value) : null;
}

/** Keeps `?ply=` in the address so a reload or a shared link shows the same position. */
function writePlyToUrl() {
  const url = new URL(location.href);
  if (state.ply === lastPly()) url.searchParams.delete('ply');
  else url.searchParams.set('ply', String(state.ply));
  history.replaceState(null, '', url);
}

function moveRow(move) {
  const pass = move.square === 'pass';
  return el(
    'tr',
    { dataset: { ply: String(move.ply) } },
    el('th', { scope: 'row', class: 'num' }, String(move.ply)),
    el('td', {}, chip(move.player), ` ${move.player}`),
    el(
      'td',
      {},
      el(
        'button',
        {
          type: 'button',
          dataset: { ply: String(move.ply) },
          'aria-label': `Show ply ${move.ply}: ${move.square}`,
        },
        move.square,
      ),
    ),
    el('td', { class: 'num', title: move.flips.join(', ') || null }, pass ? '—' : String(move.flips.length)),
    el('td', { class: 'num' }, pass && move.latencyMs === 0 ? '—' : `${move.latencyMs} ms`),
  );
}

/** Appends rows for moves not listed yet (the list only grows). */
function renderMoveList() {
  const body = $('moves');
  const moves = state.match.moves;
  for (let ply = body.children.length + 1; ply <= moves.length; ply++) body.append(moveRow(moves[ply - 1]));
  $('no-moves').hidden = moves.length > 0;
  $('moves-scroll').hidden = moves.length === 0;
}

function plyText(match, ply) {
  const moves = match.moves;
  const { black, white } = countDiscs(state.boards[ply]);
  const tail = ` Black ${black}, white ${white}.`;
  if (ply === 0) {
    const first = toMoveAfter(moves, 0, match.rules.firstPlayer);
    return `Start position, ${first} to move.${tail}`;
  }
  const move = moves[ply - 1];
  const who = `${move.player === 'black' ? 'Black' : 'White'} (${match[move.player].name})`;
  const head = `Ply ${ply} of ${moves.length}: `;
  if (move.square === 'pass') return `${head}${who} passed: no legal move.${tail}`;
  const flips = move.flips.length === 1 ? '1 disc' : `${move.flips.length} discs`;
  return `${head}${who} played ${move.square}, flipping ${flips} (${move.flips.join(', ')}) in ${move.latencyMs} ms.${tail}`;
}

function show(ply, { announce = true } = {}) {
  const match = state.match;
  state.ply = Math.max(0, Math.min(ply, lastPly()));
  const move = match.moves[state.ply - 1];
  const board = state.boards[state.ply];
  render(board, move && move.square !== 'pass' ? { placed: move.square, flips: move.flips } : {});
  $('board-label').textContent =
    `Board after ${state.ply === 0 ? 'no moves' : `ply ${state.ply}`}. ${describeBoard(board)}`;
  const { black, white } = countDiscs(board);
  replaceChildren(
    $('score'),
    el('span', {}, chip('black'), ` Black ${black}`),
    el('span', {}, chip('white'), ` White ${white}`),
  );
  // While playing, the live region is quiet: a screen reader would otherwise read every ply.
  $('ply-info').setAttribute('aria-live', announce && !state.playing ? 'polite' : 'off');
  $('ply-info').textContent = plyText(match, state.ply);

  const range = $('ply-range');
  range.max = String(lastPly());
  range.value = String(state.ply);
  $('ply-out').textContent = `${state.ply} / ${lastPly()}`;
  // aria-disabled, not disabled: a focused button that became useless keeps the focus.
  for (const id of ['first', 'prev']) $(id).setAttribute('aria-disabled', String(state.ply === 0));
  for (const id of ['next', 'last']) $(id).setAttribute('aria-disabled', String(state.ply === lastPly()));

  for (const current of document.querySelectorAll('#moves [aria-current]'))
    current.removeAttribute('aria-current');
  const row = document.querySelector(`#moves tr[data-ply="${state.ply}"]`);
  if (row) {
    row.setAttribute('aria-current', 'step');
    row.querySelector('button')?.setAttribute('aria-current', 'step');
    scrollIntoList(row);
  }
  writePlyToUrl();
}

/**
 * Scrolls the move list, and only the list, so the current row shows below the list's sticky header.
 * Not `scrollIntoView`: that would scroll the page too, and on a phone (where the list is below the
 * board) each step would carry the board off the screen.
 */
function scrollIntoList(row) {
  const box = $('moves-scroll');
  if (box.hidden) return;
  const head = box.querySelector('thead')?.getBoundingClientRect().height ?? 0;
  const inner = box.getBoundingClientRect();
  // The box's visible rows: inside its border and scroll bar, below the sticky header.
  const top = inner.top + box.clientTop + head;
  const bottom = inner.top + box.clientTop + box.clientHeight;
  const r = row.getBoundingClientRect();
  if (r.top < top) box.scrollTop -= top - r.top;
  else if (r.bottom > bottom) box.scrollTop += r.bottom - bottom;
}

function setPlaying(playing) {
  state.playing = playing;
  clearTimeout(state.playTimer);
  $('play').textContent = playing ? 'Pause' : 'Play';
  $('play').setAttribute('aria-pressed', String(playing));
  if (playing) tick();
}

function tick() {
  clearTimeout(state.playTimer);
  state.playTimer = setTimeout(
    () => {
      if (state.ply < lastPly()) {
        show(state.ply + 1);
        tick();
      } else if (!isLive(state.match)) {
        setPlaying(false);
        show(state.ply);
      } else {
        tick(); // live: wait for the next move
      }
    },
    Number($('speed').value),
  );
}

function togglePlay() {
  if (!state.match) return;
  if (!state.playing && state.ply === lastPly() && !isLive(state.match)) show(0, { announce: false });
  setPlaying(!state.playing);
}

/** A manual step pauses playback. */
function step(ply) {
  if (!state.match) return;
  if (state.playing) setPlaying(false);
  show(ply);
}

function renderOutcome(match) {
  const toMove = toMoveAfter(match.moves, match.moves.length, match.rules.firstPlayer);
  // Rewritten only when something changed, so the live region speaks once per change.
  const key = JSON.stringify([
    match.status,
    match.result,
    match.ratings,
    isLive(match) ? match.moves.length : 0,
  ]);
  if (key === state.outcomeKey) return;
  state.outcomeKey = key;
  const { kind, nodes } = outcome(match, toMove);
  const box = $('outcome');
  box.className = `notice ${kind}`;
  replaceChildren(box, nodes);
}

function update(match) {
  const first = state.match === null;
  const wasAtLatest = first || state.ply === lastPly();
  state.match = match;
  state.boards = replayBoards(match.moves, state.boards);
  if (first) {
    document.title = `${match.black.name} vs ${match.white.name} · Reversi Arena`;
    replaceChildren(
      $('title'),
      el('span', { class: 'players' }, chip('black'), match.black.name),
      ' vs ',
      el('span', { class: 'players' }, chip('white'), match.white.name),
    );
    $('rules').textContent = rulesText(match);
    $('match').hidden = false;
  }
  replaceChildren($('details'), details(match));
  renderMoveList();
  renderOutcome(match);
  if (first) {
    const wanted = plyFromUrl();
    show(wanted ?? lastPly(), { announce: false });
  } else if (wasAtLatest && !state.playing) {
    show(lastPly(), { announce: false }); // follow the game; a user looking back keeps their place
  } else {
    show(state.ply, { announce: false });
  }
}

async function load() {
  clearTimeout(state.pollTimer);
  try {
    const match = await api(`/v1/matches/${encodeURIComponent(matchId)}`);
    state.failures = 0;
    $('load-error').hidden = true;
    update(match);
  } catch (error) {
    state.failures++;
    const box = $('load-error');
    box.textContent =
      error?.status === 404 ? `There is no match with the id ${matchId}.` : errorMessage(error);
    box.hidden = false;
    if (error?.status === 404) return;
  }
  if (!state.match || isLive(state.match)) {
    const delay = document.hidden ? HIDDEN_POLL_MS : POLL_MS * 2 ** Math.min(state.failures, 5);
    state.pollTimer = setTimeout(load, delay);
  }
}

function onKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || !state.match) return;
  // Form controls keep their own keys (the range input steps by itself and fires `input`).
  if (event.target.closest?.('input, select, textarea, [contenteditable="true"]')) return;
  switch (event.key) {
    case 'ArrowLeft':
      step(state.ply - 1);
      break;
    case 'ArrowRight':
      step(state.ply + 1);
      break;
    case 'Home':
      step(0);
      break;
    case 'End':
      step(lastPly());
      break;
    case ' ':
    case 'Spacebar':
      // Space on a focused button presses that button; let it.
      if (event.target.closest?.('button, a')) return;
      togglePlay();
      break;
    default:
      return;
  }
  event.preventDefault();
}

$('first').addEventListener('click', () => step(0));
$('prev').addEventListener('click', () => step(state.ply - 1));
$('next').addEventListener('click', () => step(state.ply + 1));
$('last').addEventListener('click', () => step(lastPly()));
$('play').addEventListener('click', togglePlay);
$('ply-range').addEventListener('input', (event) => step(Number(event.target.value)));
// A click anywhere on a row shows its move (the row's button is the way in for the keyboard).
$('moves').addEventListener('click', (event) => {
  const row = event.target.closest('tr[data-ply]');
  if (row) step(Number(row.dataset.ply));
});
document.addEventListener('keydown', onKey);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && state.match && isLive(state.match)) load();
});

if (matchId) load();
else {
  $('load-error').textContent = 'No match id in the address.';
  $('load-error').hidden = false;
}
