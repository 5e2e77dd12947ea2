// The match page: GET /v1/matches/{id}, replayed from the start position with the recorded flips;
// step/play controls and keys. While the match is queued or running it follows the match's event
// stream (GET /v1/matches/{id}/events): each move as the arena records it, and a clock counting down
// the side to move's time from the arena's deadline. Where the stream cannot be had, it polls. A solo
// game is shown by match-solo.js instead.
import { createBoard, describeBoard } from './board.js';
import { formatLeft, serverOffset, timeLeft } from './clock.js';
import { api, capitalize, chip, el, errorMessage, idFromLocation, replaceChildren } from './common.js';
import { followSoloMatch } from './match-solo.js';
import { details, outcome, rulesText } from './match-text.js';
import { countDiscs, replayBoards, toMoveAfter } from './replay.js';

const POLL_MS = 1000;
const HIDDEN_POLL_MS = 5000;
const CLOCK_TICK_MS = 100;
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
  /** @type {EventSource | null} the match's event stream while it is followed */
  source: null,
  /** Set once the stream was refused for good (say, 429): the page polls instead. */
  streamFailed: false,
  /** The side to move and its deadline, on the server's clock (`offset` from the browser's). */
  clock: { toMove: null, deadline: null, offset: 0, timer: 0 },
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
  renderClock();
  if (first) {
    const wanted = plyFromUrl();
    show(wanted ?? lastPly(), { announce: false });
  } else if (wasAtLatest && !state.playing) {
    show(lastPly(), { announce: false }); // follow the game; a user looking back keeps their place
  } else {
    show(state.ply, { announce: false });
  }
}

/** Shows the side to move and its time left, counting down from the arena's deadline. */
function renderClock() {
  const box = $('clock');
  const { toMove, deadline, offset } = state.clock;
  if (!state.match || !isLive(state.match) || toMove === null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const name = state.match[toMove].name;
  const left = deadline === null ? null : timeLeft(deadline, offset);
  replaceChildren(
    box,
    chip(toMove),
    ` ${capitalize(toMove)} (${name}) to move`,
    left === null ? null : el('strong', { class: 'left' }, ` ${formatLeft(left)}`),
    left === null ? null : ' left',
  );
  box.classList.toggle('low', left !== null && left < 3000);
}

/** Sets the clock from an event of the stream (its `serverTime` sets the offset). */
function setClock(toMove, deadline, serverTime) {
  state.clock.toMove = toMove;
  state.clock.deadline = deadline;
  state.clock.offset = serverOffset(serverTime);
  clearInterval(state.clock.timer);
  if (deadline !== null) state.clock.timer = setInterval(renderClock, CLOCK_TICK_MS);
  renderClock();
}

function stopClock() {
  clearInterval(state.clock.timer);
  state.clock.toMove = null;
  state.clock.deadline = null;
  renderClock();
}

/**
 * Reads the match again through the API (when it starts, or after a gap in the stream), without
 * polling on. The stream may have gone further meanwhile: what it told is kept.
 */
async function resync() {
  try {
    const fetched = await api(`/v1/matches/${encodeURIComponent(matchId)}`);
    const local = state.match;
    if (!isLive(local) && isLive(fetched)) return; // the stream told the end already
    if (fetched.moves.length < local.moves.length) {
      fetched.moves = local.moves;
      fetched.moveCount = local.moves.length;
      fetched.status = local.status;
    }
    update(fetched);
  } catch {
    // The stream goes on; the next gap tries again.
  }
}

function onStreamState({ state: current, serverTime }) {
  setClock(current.toMove, current.deadline, serverTime);
  if (current.ply - 1 !== lastPly() || current.status !== state.match.status) resync();
}

/** A queued match that starts: shown running at once, and read again for when it started. */
function started() {
  if (state.match.status !== 'queued') return;
  update({ ...state.match, status: 'running' });
  resync();
}

function onStreamTurn(turn) {
  started();
  setClock(turn.toMove, turn.deadline, turn.serverTime);
}

function onStreamMove(event) {
  started();
  const { move } = event;
  if (move.ply === lastPly() + 1) {
    const moves = [...state.match.moves, move];
    update({ ...state.match, status: 'running', moves, moveCount: moves.length });
  } else if (move.ply > lastPly() + 1) {
    resync(); // a gap: the stream lost events (it keeps a match's last 200)
  }
  setClock(event.toMove, event.deadline, event.serverTime);
}

function onStreamFinished(end) {
  unfollow();
  const { status, result, ratings, finishedAt } = end;
  update({ ...state.match, status, result, ratings, finishedAt });
  stopClock();
}

/**
 * Follows the match's event stream; false when it cannot (no EventSource, or refused before). The
 * browser reconnects a dropped stream by itself, resuming after the last event it saw.
 */
function follow() {
  if (state.source || state.streamFailed || typeof EventSource !== 'function') return Boolean(state.source);
  const source = new EventSource(`/v1/matches/${encodeURIComponent(matchId)}/events`);
  state.source = source;
  const on = (type, handler) => source.addEventListener(type, (event) => handler(JSON.parse(event.data)));
  on('state', onStreamState);
  on('turn', onStreamTurn);
  on('move', onStreamMove);
  on('finished', onStreamFinished);
  source.addEventListener('error', () => {
    // CONNECTING: the browser reconnects by itself. CLOSED: refused (an error status): poll instead.
    if (source.readyState !== EventSource.CLOSED) return;
    unfollow();
    state.streamFailed = true;
    stopClock(); // the polled match document carries no deadline
    load();
  });
  return true;
}

function unfollow() {
  state.source?.close();
  state.source = null;
}

async function load() {
  clearTimeout(state.pollTimer);
  try {
    const match = await api(`/v1/matches/${encodeURIComponent(matchId)}`);
    // A solo game is not replayed here (its records do not say which tokens each move turned up).
    if (match.game === 'solo' && state.match === null) return followSoloMatch(match);
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
  // A live match is followed on its event stream from here; polling is the fallback.
  if (state.match && isLive(state.match) && follow()) return;
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
  if (!document.hidden && state.match && isLive(state.match) && !state.source) load();
});

if (matchId) load();
else {
  $('load-error').textContent = 'No match id in the address.';
  $('load-error').hidden = false;
}
