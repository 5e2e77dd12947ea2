// The /play page: a person plays as a guest, through the public pull API, either a bot (here) or the
// solo puzzle (play-solo.js). The page registers a guest once (POST /v1/guests) and keeps its token in
// this browser's localStorage only; it creates an unrated challenge with that token, then follows the
// match with long polls of GET /v1/matches/{id}/state and plays with POST /v1/matches/{id}/actions.
// The match id is kept in the address (?match=) and in localStorage, so a reload resumes the game
// from the state API, whichever of the two games it is.
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
  showError,
  storedGuest,
  storedMatchId,
  ticking,
} from './play-common.js';
import { followSolo, prepareSoloSetup, soloShown, startSolo, stopSolo } from './play-solo.js';
import { squareName } from './replay.js';

/** Per-move limits offered, the default first; the server's guest maximum caps them. */
const TIME_CHOICES = [60_000, 30_000, 120_000];
const DEFAULT_TIME_MS = 60_000;
/** House bots from the easiest; others follow in name order. */
const HOUSE_ORDER = ['house-random', 'house-greedy', 'house-alphabeta-1', 'house-alphabeta-4'];
/** Pages of GET /v1/bots read for opponents (100 bots each). */
const MAX_BOT_PAGES = 5;

// --- choosing a game ------------------------------------------------------------------------------

function houseRank(bot) {
  const index = HOUSE_ORDER.indexOf(bot.name);
  return index === -1 ? HOUSE_ORDER.length : index;
}

/** The bots a guest may challenge: active, accepting challenges, not paused; house bots first. */
async function loadOpponents() {
  const bots = [];
  let cursor = null;
  for (let page = 0; page < MAX_BOT_PAGES; page++) {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const answer = await call(`/v1/bots?${query}`);
    bots.push(...answer.items);
    cursor = answer.nextCursor;
    if (!cursor) break;
  }
  const open = bots.filter(
    (bot) => bot.status === 'active' && bot.acceptsChallenges && !bot.paused && !bot.guest,
  );
  const house = open.filter((bot) => bot.house).sort((a, b) => houseRank(a) - houseRank(b));
  const others = open.filter((bot) => !bot.house).sort((a, b) => a.name.localeCompare(b.name));
  return { house, others };
}

async function showSetup() {
  $('game').hidden = true;
  $('solo-game').hidden = true;
  $('setup').hidden = false;
  prepareSoloSetup();
  const wanted = new URLSearchParams(location.search).get('opponent');
  const [{ house, others }, game] = await Promise.all([loadOpponents(), call('/v1/games/reversi')]);
  if (wanted && ![...house, ...others].some((bot) => bot.id === wanted)) {
    // Named by a bot's page but not among the first pages of bots: ask for it.
    const bot = await call(`/v1/bots/${encodeURIComponent(wanted)}`).catch(() => null);
    if (bot && bot.status === 'active' && bot.acceptsChallenges && !bot.paused && !bot.guest)
      others.unshift(bot);
  }
  const option = (bot) => el('option', { value: bot.id, selected: bot.id === wanted }, bot.name);
  replaceChildren(
    $('opponent'),
    house.length > 0 ? el('optgroup', { label: 'House bots' }, house.map(option)) : null,
    others.length > 0 ? el('optgroup', { label: 'Bots that accept challenges' }, others.map(option)) : null,
  );
  $('start').disabled = house.length + others.length === 0;
  // Said in the bot game's own box, not as the page's error: the solo puzzle is there all the same.
  $('no-opponents').hidden = house.length + others.length > 0;
  const max = game.limits.guestTimeLimitMs?.max ?? DEFAULT_TIME_MS;
  const choices = TIME_CHOICES.filter((ms) => ms <= max).sort((a, b) => a - b);
  replaceChildren(
    $('time'),
    choices.map((ms) =>
      el('option', { value: String(ms), selected: ms === DEFAULT_TIME_MS }, `${formatLimit(ms)} a move`),
    ),
  );
}

const formatLimit = (ms) => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

async function startGame(event) {
  event.preventDefault();
  hideError();
  const button = $('start');
  button.disabled = true;
  try {
    const guest = await ensureGuest();
    const opponent = $('opponent').value;
    const colour = new FormData($('setup-form')).get('colour') === 'white' ? 'white' : 'black';
    const match = await call('/v1/matches', {
      method: 'POST',
      token: guest.token,
      body: {
        black: colour === 'black' ? guest.id : opponent,
        white: colour === 'white' ? guest.id : opponent,
        rules: { timeLimitMs: Number($('time').value), overageMs: 0 },
      },
    });
    // The board exists before the address names the game: whoever reads the page once it does
    // (a person, a script, a test) finds it, though it shows once the match is read.
    if (cells.length === 0) cells = createPlayBoard($('board'), { onSquare });
    rememberMatch(match.id);
    await follow(match.id, guest);
  } catch (error) {
    await lost(error);
  } finally {
    button.disabled = false;
  }
}

// --- the board ------------------------------------------------------------------------------------

/** The board's 64 buttons, a1 first; built with the first game shown. */
let cells = [];

/** Draws `rows` (the state's board) with the legal squares and the last move's marks. */
function drawBoard(rows, { legal = [], placed = null, flips = [] } = {}) {
  const legalSet = new Set(legal);
  const flipSet = new Set(flips);
  for (let index = 0; index < 64; index++) {
    const cell = cells[index];
    const square = squareName(index);
    const mark = rows[Math.floor(index / 8)][index % 8];
    const color = mark === 'B' ? 'black' : mark === 'W' ? 'white' : null;
    cell.firstChild.className = color ? `disc ${color}` : 'disc';
    const isLegal = legalSet.has(square);
    cell.toggleAttribute('data-legal', isLegal);
    cell.setAttribute('aria-disabled', isLegal ? 'false' : 'true');
    cell.classList.toggle('placed', square === placed);
    cell.classList.toggle('flipped', flipSet.has(square));
    const what = color ?? 'empty';
    const notes = [
      isLegal ? 'you may play here' : null,
      square === placed ? 'last move' : null,
      flipSet.has(square) ? 'just turned over' : null,
    ].filter(Boolean);
    cell.setAttribute('aria-label', [`${square}, ${what}`, ...notes].join(', '));
  }
}

// --- following a game -----------------------------------------------------------------------------

/** The game on screen; `null` when none. */
let game = null;

/**
 * Shows match `matchId` and plays it to its end: long polls while the opponent thinks, waits for a
 * click (or the deadline) on the guest's turn.
 */
async function follow(matchId, guest) {
  game?.stop.abort();
  const match = await call(`/v1/matches/${encodeURIComponent(matchId)}`);
  if (match.game === 'solo') {
    game = null;
    moveTimer.stop();
    $('game').hidden = true;
    return followSolo(match, guest);
  }
  stopSolo();
  const you = match.black.id === guest.id ? 'black' : match.white.id === guest.id ? 'white' : null;
  if (you === null) {
    forgetMatch();
    throw new Error('That game is not one of this browser’s: start a new one.');
  }
  game = {
    matchId,
    guest,
    you,
    match,
    moves: match.moves,
    state: null,
    turnSeenAt: Date.now(),
    pending: null,
    stop: new AbortController(),
  };
  const current = game;
  $('setup').hidden = true;
  $('solo-game').hidden = true;
  $('game').hidden = false;
  $('new-game').hidden = true;
  $('result').hidden = true;
  for (const help of document.querySelectorAll('.kbd-help')) help.hidden = false;
  $('result').removeAttribute('data-result');
  $('match-link').href = matchHref(matchId);
  $('title').textContent = `${match.black.name} vs ${match.white.name}`;
  document.title = `${match.black.name} vs ${match.white.name} · Play · Reversi Arena`;
  for (const color of ['black', 'white']) {
    const who = document.querySelector(`#clock-${color} .who`);
    who.textContent = color === you ? 'You' : match[color].name;
    who.title = color === you ? `You, as ${guest.name}` : match[color].name;
  }
  if (cells.length === 0) cells = createPlayBoard($('board'), { onSquare });
  await playToTheEnd(current, {
    isCurrent: () => game === current,
    show: (state) => show(current, state),
    trouble: (text) => {
      $('turn').textContent = text;
    },
    timer: moveTimer,
  });
}

/** A click on a square: plays it when it is legal and the guest's turn. */
async function onSquare(square) {
  const current = game;
  const state = current?.state;
  if (!state || current.pending || !myTurn(state, current.you) || !state.legalMoves.includes(square)) return;
  current.pending = square;
  drawBoard(state.board, marksOf(current, state)); // no legal squares while the move is out
  $('turn').textContent = `You play ${square}…`;
  await postMove(
    current,
    { action: square, ply: state.ply },
    { isCurrent: () => game === current, show: (shown) => show(current, shown) },
  );
}

/** The last move's square and flips, from the match's move records (the state has no flips). */
function marksOf(current, state) {
  const move = current.moves[state.history.length - 1];
  if (!move || move.square === 'pass') return {};
  return { placed: move.square, flips: move.flips };
}

/** Draws a state when it is the newest seen; announces what changed. */
async function show(current, state) {
  if (game !== current) return;
  if (!newer(state, current.state)) return;
  const before = current.state;
  if (state.history.length > current.moves.length) {
    const match = await call(`/v1/matches/${encodeURIComponent(current.matchId)}`);
    if (game !== current) return;
    current.match = match;
    current.moves = match.moves;
  }
  if (!before || before.toMove !== state.toMove || before.history.length !== state.history.length) {
    current.turnSeenAt = Date.now();
  }
  current.state = state;
  drawBoard(state.board, {
    ...marksOf(current, state),
    legal: myTurn(state, current.you) ? state.legalMoves : [],
  });
  const discs = countDiscs(state.board);
  $('score').textContent = `Black ${discs.black} · White ${discs.white}`;
  $('last-move').textContent = lastMoveText(current, state);
  announce(current, before, state);
  if (isOver(state)) finish(current, state);
  else $('turn').textContent = turnText(current, state);
  tick();
}

function turnText(current, state) {
  if (state.status === 'queued') return 'Waiting for the arena to start the game…';
  return myTurn(state, current.you) ? 'Your turn: pick a square.' : `${opponentName(current)} is thinking…`;
}

const opponentName = (current) => current.match[otherColor(current.you)].name;
const sideName = (current, color) => (color === current.you ? 'You' : current.match[color].name);

function countDiscs(rows) {
  const all = rows.join('');
  return { black: all.split('B').length - 1, white: all.split('W').length - 1 };
}

function lastMoveText(current, state) {
  const move = current.moves[state.history.length - 1];
  if (!move) return 'No move yet.';
  if (move.square === 'pass') return `Last: ${sideName(current, move.player)} passed (no legal move).`;
  const flips = move.flips.length === 1 ? '1 disc' : `${move.flips.length} discs`;
  return `Last: ${sideName(current, move.player)} played ${move.square}, turning over ${flips}.`;
}

/** Tells a screen reader (and the page) about the new plies: moves, passes, whose turn it is. */
function announce(current, before, state) {
  const from = before ? before.history.length : state.history.length;
  const lines = [];
  for (const entry of state.history.slice(from)) {
    if (entry.square === 'pass') {
      lines.push(
        entry.player === current.you
          ? 'You have no legal move: the arena passed for you.'
          : `${sideName(current, entry.player)} has no legal move and passes.`,
      );
    } else if (entry.player !== current.you) {
      lines.push(`${sideName(current, entry.player)} played ${entry.square}.`);
    }
  }
  const passes = state.history.slice(from).filter((entry) => entry.square === 'pass');
  $('turn').classList.toggle('pass', passes.length > 0);
  if (!isOver(state) && myTurn(state, current.you) && (!before || !myTurn(before, current.you)))
    lines.push('Your turn.');
  if (lines.length > 0) $('announce').textContent = lines.join(' ');
  if (passes.length > 0) $('last-move').textContent = lines.filter((line) => /pass/.test(line)).join(' ');
}

const REASON = {
  timeout: 'ran out of time',
  'bot-error': 'could not be reached',
  'invalid-response': 'answered nonsense',
  'illegal-move': 'played an illegal move',
};

/** The result panel: who won, the score, and why it ended when it was not played out. */
function finish(current, state) {
  const { result } = state;
  // The score as the player counts it: their own discs first.
  const mine = result.discs[current.you];
  const theirs = result.discs[current.you === 'black' ? 'white' : 'black'];
  const discs = `${mine}–${theirs}`;
  let kind;
  let text;
  if (state.status === 'aborted' || result.reason === 'aborted') {
    kind = 'aborted';
    text = 'The arena stopped the game: no winner.';
  } else if (result.winner === null) {
    kind = 'draw';
    text = `Draw, ${discs}.`;
  } else {
    kind = result.winner === current.you ? 'win' : 'loss';
    text = kind === 'win' ? `You won ${discs}.` : `You lost ${discs} to ${opponentName(current)}.`;
  }
  const fault = result.fault;
  const why = fault
    ? ` ${capitalize(sideName(current, fault.player))} ${REASON[fault.reason ?? result.reason] ?? 'faulted'}.`
    : '';
  const box = $('result');
  box.className = `notice ${kind === 'win' ? 'ok' : kind === 'loss' ? 'error' : 'warn'}`;
  box.dataset.result = kind;
  replaceChildren(box, el('p', {}, el('strong', {}, text), why));
  box.hidden = false;
  $('turn').textContent = 'Game over.';
  // What told the player how to move, or that they could not, is over with the game.
  $('last-move').textContent = '';
  $('turn').classList.remove('pass');
  for (const help of document.querySelectorAll('.kbd-help')) help.hidden = true;
  $('announce').textContent = `Game over. ${text}${why}`;
  $('new-game').hidden = false;
  forgetMatch();
  moveTimer.stop();
}

// --- the clocks -----------------------------------------------------------------------------------

const moveTimer = ticking(() => tick());

/**
 * Both clocks: the side to move counts down to the arena's deadline (the state's, on the server's
 * clock) or, for a bot whose deadline the arena does not publish, from when its turn was seen; the
 * other shows its whole time for a move.
 */
function tick() {
  const current = game;
  const state = current?.state;
  if (!state) return;
  const { timeLimitMs } = state.rules;
  for (const color of ['black', 'white']) {
    const clock = $(`clock-${color}`);
    const running = !isOver(state) && state.toMove === color;
    let left = timeLimitMs + (color === current.you ? state.remainingOverageMs : 0);
    if (running) {
      left = state.deadline
        ? Date.parse(state.deadline) - serverNow()
        : timeLimitMs - (Date.now() - current.turnSeenAt);
    }
    clock.classList.toggle('running', running);
    clock.classList.toggle('low', running && left < 10_000);
    clock.querySelector('.time').textContent = formatClock(left);
  }
}

// --- errors and start -----------------------------------------------------------------------------

/** Back to choosing a game, saying why the last one could not go on. */
async function lost(error) {
  showError(error);
  if (!$('game').hidden || soloShown()) {
    game = null;
    stopSolo();
    await showSetup().catch(() => {});
  }
}

/** Back to choosing a game; `focus` is the field to start from (the opponent, or the solo layout). */
async function newGame(focus = 'opponent') {
  game?.stop.abort();
  game = null;
  moveTimer.stop();
  stopSolo();
  forgetMatch();
  const url = new URL(location.href);
  url.searchParams.delete('match');
  history.replaceState(null, '', url);
  $('title').textContent = 'Play Reversi';
  document.title = 'Play · Reversi Arena';
  try {
    await showSetup();
    $(focus).focus();
  } catch (error) {
    showError(error);
  }
}

async function main() {
  $('setup-form').addEventListener('submit', startGame);
  $('new-game').addEventListener('click', () => newGame());
  $('solo-form').addEventListener('submit', (event) => startSolo(event).catch(lost));
  $('solo-new-game').addEventListener('click', () => newGame('solo-layout'));
  const matchId = storedMatchId();
  const guest = storedGuest();
  try {
    if (matchId && /^match_[0-9A-HJKMNP-TV-Z]{26}$/.test(matchId) && guest) {
      rememberMatch(matchId);
      await follow(matchId, guest);
      return;
    }
    await showSetup();
  } catch (error) {
    showError(error);
    if ($('setup').hidden) await showSetup().catch(() => {});
  }
}

main();
