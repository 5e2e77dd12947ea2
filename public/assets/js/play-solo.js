// The solo puzzle on /play (docs/solo.md): the guest starts a game on a layout of its choice with
// POST /v1/solo, then places a disc of the colour it picks each move, as the state's `legalActions`
// allow, until no placement is left or every token is captured. play.js wires it into the page (the
// setup form, "New game", resuming a game after a reload); the state and the moves come from the same
// pull API as a game against a bot.
import { capitalize, el, matchHref, otherColor, replaceChildren } from './common.js';
import { createPlayBoard } from './play-board.js';
import {
  $,
  call,
  ensureGuest,
  forgetMatch,
  formatClock,
  hideError,
  isOver,
  myTurn,
  newer,
  playToTheEnd,
  postMove,
  rememberMatch,
  serverNow,
  ticking,
} from './play-common.js';
import { squareName } from './replay.js';
import {
  count,
  describeSquare,
  paintSquare,
  scoringText,
  soloSquares,
  splitFlips,
  tokenTile,
  tokenWords,
} from './solo-view.js';

/**
 * The highest layout the API takes. Practice layouts stop at 2^30 - 1; the league's are numbered from
 * 2^30 up, and the arena refuses those of a week that has not ended (403 solo/league-layout, shown).
 */
const MAX_LAYOUT = 2 ** 31 - 1;
/** The layout offered by default is drawn below this: a short number, easy to note and to share. */
const DEFAULT_LAYOUTS = 100_000;
/** The player is always black in the arena's records; the colour of each disc is its own choice. */
const YOU = 'black';

const REASON = {
  timeout: 'ran out of time',
  'bot-error': 'could not be reached',
  'invalid-response': 'answered nonsense',
  'illegal-move': 'played an illegal move',
};

/** The solo game on screen; `null` when none. */
let solo = null;
/** The board's 64 buttons, a1 first; built with the first solo game shown. */
let cells = [];
/** The colour of the next disc placed, as the person picked it. */
let colour = 'black';

// --- choosing a game ------------------------------------------------------------------------------

/** Fills the solo form: the layout and scoring of the address (`?layout=&scoring=`), else a random layout. */
export function prepareSoloSetup() {
  const params = new URLSearchParams(location.search);
  const input = $('solo-layout');
  const layout = params.get('layout');
  if (layout !== null && /^\d{1,10}$/.test(layout)) input.value = layout;
  else if (input.value === '') input.value = String(1 + Math.floor(Math.random() * (DEFAULT_LAYOUTS - 1)));
  const scoring = params.get('scoring');
  if (scoring === 'tokens' || scoring === 'points') {
    document.querySelector(`#solo-form input[name="scoring"][value="${scoring}"]`).checked = true;
  }
  layoutError(null);
}

function layoutError(message) {
  const input = $('solo-layout');
  $('solo-layout-error').textContent = message ?? '';
  $('solo-layout-error').hidden = message === null;
  if (message === null) input.removeAttribute('aria-invalid');
  else input.setAttribute('aria-invalid', 'true');
}

/** The layout typed in, or null (and the field says why) when it can be no layout at all. */
function readLayout() {
  const text = $('solo-layout').value.trim();
  const layout = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(layout) || layout > MAX_LAYOUT) {
    layoutError(`A layout is a whole number from 0 to ${MAX_LAYOUT}.`);
    $('solo-layout').focus();
    return null;
  }
  layoutError(null);
  return layout;
}

/** The solo form's submit: starts a game with the guest's token and plays it to its end. */
export async function startSolo(event) {
  event.preventDefault();
  hideError();
  const layout = readLayout();
  if (layout === null) return;
  const scoring = new FormData($('solo-form')).get('scoring') === 'points' ? 'points' : 'tokens';
  const button = $('solo-start');
  button.disabled = true;
  try {
    const guest = await ensureGuest();
    const match = await call('/v1/solo', { method: 'POST', token: guest.token, body: { layout, scoring } });
    rememberMatch(match.id);
    await followSolo(match, guest);
  } finally {
    button.disabled = false;
  }
}

export const soloShown = () => !$('solo-game').hidden;

/** Stops following the solo game on screen, if any, and hides it. */
export function stopSolo() {
  solo?.stop.abort();
  solo = null;
  moveTimer.stop();
  $('solo-game').hidden = true;
  // A hidden board keeps no marks a script (or a test) could take for the game on screen.
  for (const cell of cells) {
    cell.removeAttribute('data-legal');
    cell.removeAttribute('data-other');
  }
  $('solo-result').removeAttribute('data-result');
}

// --- following a game -----------------------------------------------------------------------------

/**
 * Shows the solo game `match` (a match summary or document) and plays it to its end: waits for a
 * click (or the deadline) on each turn, reads the arena's answer in between.
 */
export async function followSolo(match, guest) {
  stopSolo();
  if (match.black.id !== guest.id) {
    forgetMatch();
    throw new Error('That game is not one of this browser’s: start a new one.');
  }
  solo = {
    matchId: match.id,
    guest,
    you: YOU,
    match,
    moves: match.moves ?? [],
    state: null,
    pending: null,
    stop: new AbortController(),
  };
  const current = solo;
  $('setup').hidden = true;
  $('game').hidden = true;
  $('solo-game').hidden = false;
  $('solo-new-game').hidden = true;
  $('solo-result').hidden = true;
  $('solo-help').hidden = false;
  $('solo-colour').hidden = false;
  $('solo-match-link').href = matchHref(match.id);
  $('solo-scoring').textContent = `Scored by ${scoringText(match.rules.scoring)}.`;
  const title = `Solo puzzle, layout ${match.rules.layout}`;
  $('title').textContent = title;
  document.title = `${title} · Play · Reversi Arena`;
  if (cells.length === 0) {
    cells = createPlayBoard($('solo-board'), { onSquare, label: 'Solo board' });
    $('solo-board').addEventListener('keydown', onColourKey);
    for (const button of document.querySelectorAll('#solo-colour button')) {
      button.addEventListener('click', () => pickColour(button.dataset.colour));
    }
  }
  pickColour(colour);
  await playToTheEnd(current, {
    isCurrent: () => solo === current,
    show: (state) => show(current, state),
    trouble: (text) => {
      $('solo-turn').textContent = text;
    },
    timer: moveTimer,
  });
}

/** Picks the colour of the next disc: the toggle and the board's marks follow. */
function pickColour(picked) {
  colour = picked === 'white' ? 'white' : 'black';
  for (const button of document.querySelectorAll('#solo-colour button')) {
    button.setAttribute('aria-pressed', String(button.dataset.colour === colour));
  }
  $('solo-board').dataset.colour = colour;
  const current = solo;
  if (current?.state) {
    draw(current, current.state);
    if (!isOver(current.state)) $('solo-turn').textContent = turnText(current, current.state);
  }
}

/** On the board, B and W pick the colour (the squares keep the arrow keys, Enter and Space). */
function onColourKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const key = event.key.toLowerCase();
  if (key !== 'b' && key !== 'w') return;
  event.preventDefault();
  pickColour(key === 'b' ? 'black' : 'white');
  $('solo-announce').textContent = `${capitalize(colour)} disc.`;
}

/** A click on a square: places the chosen colour there when that placement is legal on the guest's turn. */
async function onSquare(square) {
  const current = solo;
  const state = current?.state;
  if (!state || current.pending || !myTurn(state, YOU)) return;
  const action = state.legalActions.find((a) => a.action === square && a.colour === colour);
  if (!action) {
    const other = state.legalActions.find((a) => a.action === square);
    if (other) {
      const text = `Only a ${other.colour} disc may go on ${square}: pick ${capitalize(other.colour)} first.`;
      $('solo-turn').textContent = text;
      $('solo-announce').textContent = text;
    }
    return;
  }
  current.pending = action;
  draw(current, state); // no legal squares while the move is out
  $('solo-turn').textContent = `You place a ${colour} disc on ${square}…`;
  await postMove(
    current,
    { action: square, colour: action.colour, ply: state.ply },
    { isCurrent: () => solo === current, show: (shown) => show(current, shown) },
  );
}

/** Draws a state when it is the newest seen; announces what changed. */
async function show(current, state) {
  if (solo !== current || !newer(state, current.state)) return;
  const before = current.state;
  if (state.history.length > current.moves.length) {
    // The state has no flips: the match's move records have them.
    const match = await call(`/v1/matches/${encodeURIComponent(current.matchId)}`);
    if (solo !== current) return;
    current.match = match;
    current.moves = match.moves;
  }
  current.state = state;
  draw(current, state);
  $('solo-score').textContent = String(state.score);
  const captured = state.captured.length;
  $('solo-counts').textContent =
    `${count(captured, 'token')} captured, ${count(state.tokens.length, 'token')} on the board.`;
  replaceChildren(
    $('solo-captured'),
    state.captured.map((token) => el('li', {}, tokenTile(token))),
  );
  $('solo-captured-none').hidden = captured > 0;
  $('solo-last-move').textContent = lastMoveText(current, state);
  announce(current, before, state);
  if (isOver(state)) finish(state);
  else $('solo-turn').textContent = turnText(current, state);
  tick();
}

/** The last move's marks: its square, the discs it turned over and the squares of the tokens it took. */
function marksOf(current, state) {
  const ply = state.history.length;
  const move = current.moves[ply - 1];
  if (!move || move.square === 'pass') return { placed: null, discs: [], captures: [] };
  return { placed: move.square, ...splitFlips(current.moves.slice(0, ply))[ply - 1] };
}

/** The board: discs, tokens, the squares the chosen colour may take, and the last move's marks. */
function draw(current, state) {
  const squares = soloSquares(state);
  const open = myTurn(state, YOU) && !current.pending;
  const actions = open ? state.legalActions : [];
  const chosen = new Set(actions.filter((a) => a.colour === colour).map((a) => a.action));
  const others = new Set(actions.filter((a) => a.colour !== colour).map((a) => a.action));
  const marks = marksOf(current, state);
  const flipped = new Set(marks.discs);
  const taken = new Set(marks.captures);
  for (let index = 0; index < 64; index++) {
    const cell = cells[index];
    const square = squareName(index);
    const what = squares[index];
    paintSquare(cell.firstChild, what);
    const legal = chosen.has(square);
    const otherOnly = !legal && others.has(square);
    cell.toggleAttribute('data-legal', legal);
    cell.toggleAttribute('data-other', otherOnly);
    cell.setAttribute('aria-disabled', legal ? 'false' : 'true');
    cell.classList.toggle('placed', square === marks.placed);
    cell.classList.toggle('flipped', flipped.has(square));
    cell.classList.toggle('captured', taken.has(square));
    const notes = [
      legal ? `a ${colour} disc may go here` : null,
      otherOnly ? `only a ${otherColor(colour)} disc may go here` : null,
      square === marks.placed ? 'last move' : null,
      flipped.has(square) ? 'just turned over' : null,
      taken.has(square) ? 'token just captured' : null,
    ].filter(Boolean);
    cell.setAttribute('aria-label', [describeSquare(square, what), ...notes].join(', '));
  }
}

function turnText(current, state) {
  if (state.status === 'queued') return 'Waiting for the arena to start the game…';
  if (current.pending) return `You place a ${current.pending.colour} disc on ${current.pending.action}…`;
  if (!myTurn(state, YOU)) return 'The arena takes your move…';
  if (state.legalActions.some((a) => a.colour === colour)) return `Your move: place a ${colour} disc.`;
  return `No ${colour} disc may go anywhere: pick ${capitalize(otherColor(colour))}.`;
}

function lastMoveText(current, state) {
  const ply = state.history.length;
  const move = current.moves[ply - 1];
  if (!move) return 'No move yet.';
  const { discs, captures } = splitFlips(current.moves.slice(0, ply))[ply - 1];
  const took = captures.length > 0 ? ` and capturing ${count(captures.length, 'token')}` : '';
  return `Last: a ${move.colour} disc on ${move.square}, turning over ${count(discs.length, 'disc')}${took}.`;
}

/** Tells a screen reader (and the page) what the last move did: tokens turned up, tokens captured. */
function announce(current, before, state) {
  if (!before || state.history.length === before.history.length) {
    if (!before && myTurn(state, YOU)) $('solo-announce').textContent = turnText(current, state);
    return;
  }
  const hidden = new Set(before.tokens.filter((token) => token.hidden).map((token) => token.square));
  const turned = state.tokens.filter((token) => !token.hidden && hidden.has(token.square));
  const taken = state.captured.slice(before.captured.length);
  const lines = [lastMoveText(current, state)];
  if (turned.length > 0) {
    lines.push(`Turned up: ${turned.map((token) => `${token.square}, ${tokenWords(token)}`).join('; ')}.`);
  }
  if (taken.length > 0) {
    lines.push(`Captured: ${taken.map((token) => `${token.colour} ${token.value}`).join(', ')}.`);
  }
  lines.push(`Score ${state.score}.`);
  $('solo-announce').textContent = lines.join(' ');
}

/** The result panel: the score, and why the game ended when it was not played out. */
function finish(state) {
  const { result } = state;
  let kind;
  let text;
  if (state.status === 'aborted' || result?.reason === 'aborted') {
    kind = 'aborted';
    text = `The arena stopped the game. Score ${state.score}.`;
  } else if (result?.reason === 'completed') {
    kind = 'completed';
    text = `Game over: score ${state.score}.`;
  } else {
    kind = result?.reason ?? 'ended';
    text = `Game over: you ${REASON[kind] ?? 'faulted'}. Score ${state.score}.`;
  }
  const why =
    state.tokens.length === 0
      ? ' Every token is captured.'
      : ` ${count(state.captured.length, 'token')} captured, ${count(state.tokens.length, 'token')} left.`;
  const box = $('solo-result');
  box.className = `notice ${kind === 'completed' ? 'ok' : 'warn'}`;
  box.dataset.result = kind;
  replaceChildren(box, el('p', {}, el('strong', {}, text), why));
  box.hidden = false;
  $('solo-turn').textContent = 'Game over.';
  $('solo-last-move').textContent = '';
  $('solo-help').hidden = true;
  $('solo-colour').hidden = true;
  $('solo-announce').textContent = `${text}${why}`;
  $('solo-new-game').hidden = false;
  forgetMatch();
  moveTimer.stop();
}

// --- the clock ------------------------------------------------------------------------------------

const moveTimer = ticking(() => tick());

/** The guest's time for this move, counted down to the arena's deadline while it is the guest's turn. */
function tick() {
  const state = solo?.state;
  if (!state) return;
  const clock = $('solo-clock');
  const running = myTurn(state, YOU);
  const left = running
    ? Date.parse(state.deadline) - serverNow()
    : state.rules.timeLimitMs + state.remainingOverageMs;
  clock.classList.toggle('running', running);
  clock.classList.toggle('low', running && left < 10_000);
  clock.querySelector('.time').textContent = formatClock(left);
}
