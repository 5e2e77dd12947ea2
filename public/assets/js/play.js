// The /play page: a person plays a bot as a guest, through the public pull API. The page registers
// a guest once (POST /v1/guests) and keeps its token in this browser's localStorage only; it creates
// an unrated challenge with that token, then follows the match with long polls of
// GET /v1/matches/{id}/state and plays with POST /v1/matches/{id}/actions. The match id is kept in
// the address (?match=) and in localStorage, so a reload resumes the game from the state API.
import { ApiError, capitalize, el, errorMessage, matchHref, otherColor, replaceChildren } from './common.js';
import { FILES, squareName } from './replay.js';

const GUEST_KEY = 'reversi-arena.guest';
const MATCH_KEY = 'reversi-arena.play.match';
/** How long one long poll waits for the guest's turn (the API allows up to 30 s). */
const WAIT_MS = 25_000;
/** Per-move limits offered, the default first; the server's guest maximum caps them. */
const TIME_CHOICES = [60_000, 30_000, 120_000];
const DEFAULT_TIME_MS = 60_000;
/** House bots from the easiest; others follow in name order. */
const HOUSE_ORDER = ['house-random', 'house-greedy', 'house-alphabeta-1', 'house-alphabeta-4'];
/** Pages of GET /v1/bots read for opponents (100 bots each). */
const MAX_BOT_PAGES = 5;

const $ = (id) => document.getElementById(id);

// --- the API, with the guest's token and the server's clock ---------------------------------------

/**
 * The server's clock minus ours, narrowed with every answer: the server's time when it answered lies
 * within its Date header's second, and within the time the request was out.
 */
const skew = { low: Number.NEGATIVE_INFINITY, high: Number.POSITIVE_INFINITY };

function noteServerDate(header, sentAt, receivedAt) {
  const date = Date.parse(header ?? '');
  if (!Number.isFinite(date)) return;
  const low = date - receivedAt;
  const high = date + 1000 - sentAt;
  // A clock that jumped (ours or the server's) leaves no overlap: start again from this answer.
  if (low > skew.high || high < skew.low) {
    skew.low = low;
    skew.high = high;
  } else {
    skew.low = Math.max(skew.low, low);
    skew.high = Math.min(skew.high, high);
  }
}

/** The server's time now, as well as its Date headers tell. */
function serverNow() {
  const offset = Number.isFinite(skew.low) && Number.isFinite(skew.high) ? (skew.low + skew.high) / 2 : 0;
  return Date.now() + offset;
}

/**
 * Calls the API, with the guest's token when given. Resolves with the JSON answer; rejects with an
 * ApiError (its problem's message) or a TypeError when the network fails.
 */
async function call(path, { method = 'GET', body, token, signal } = {}) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const sentAt = Date.now();
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    signal,
  });
  noteServerDate(res.headers.get('date'), sentAt, Date.now());
  const json = /json/.test(res.headers.get('content-type') ?? '') ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const retry = Number.parseInt(res.headers.get('retry-after') ?? '', 10);
    throw new ApiError(res.status, json, Number.isFinite(retry) ? retry : null);
  }
  return json;
}

// --- the guest, kept in this browser --------------------------------------------------------------

function storedGuest() {
  try {
    const guest = JSON.parse(localStorage.getItem(GUEST_KEY) ?? 'null');
    return guest && typeof guest.token === 'string' && typeof guest.id === 'string' ? guest : null;
  } catch {
    return null;
  }
}

/** The guest of this browser: the stored one while its token works, else a new one (registered once). */
async function ensureGuest() {
  const stored = storedGuest();
  if (stored) {
    try {
      await call('/v1/bots/me', { token: stored.token });
      return stored;
    } catch (error) {
      // Retired after a long idle time (or the arena was reset): register a new guest.
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
  }
  const created = await call('/v1/guests', { method: 'POST' });
  const guest = { id: created.id, name: created.name, token: created.token };
  localStorage.setItem(GUEST_KEY, JSON.stringify(guest));
  return guest;
}

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
  $('setup').hidden = false;
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
  if (house.length + others.length === 0) showError(new Error('No bot accepts challenges right now.'));
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
    rememberMatch(match.id);
    await follow(match.id, guest);
  } catch (error) {
    await lost(error);
  } finally {
    button.disabled = false;
  }
}

function rememberMatch(matchId) {
  localStorage.setItem(MATCH_KEY, matchId);
  const url = new URL(location.href);
  url.searchParams.delete('opponent');
  url.searchParams.set('match', matchId);
  history.replaceState(null, '', url);
}

function forgetMatch() {
  localStorage.removeItem(MATCH_KEY);
}

// --- the board ------------------------------------------------------------------------------------

const board = { cells: [], focus: 0 };

/** 64 buttons, rank 1 at the top as the arena prints it, each named by its square. */
function buildBoard() {
  const grid = el('div', { class: 'board play-board', role: 'group', 'aria-label': 'Board' });
  grid.append(el('span', { class: 'label corner', 'aria-hidden': 'true' }));
  for (const file of FILES) grid.append(el('span', { class: 'label file', 'aria-hidden': 'true' }, file));
  for (let rank = 0; rank < 8; rank++) {
    grid.append(el('span', { class: 'label rank', 'aria-hidden': 'true' }, String(rank + 1)));
    for (let file = 0; file < 8; file++) {
      const index = rank * 8 + file;
      const square = squareName(index);
      const cell = el(
        'button',
        {
          type: 'button',
          class: `cell${rank === 0 ? ' top' : ''}${file === 0 ? ' left' : ''}`,
          dataset: { square },
          tabindex: index === 0 ? '0' : '-1',
          onclick: () => onSquare(square),
          onfocus: () => {
            board.focus = index;
          },
        },
        el('span', { class: 'disc' }),
      );
      board.cells.push(cell);
      grid.append(cell);
    }
  }
  grid.addEventListener('keydown', onBoardKey);
  $('board').replaceChildren(grid);
}

const STEPS = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -8, ArrowDown: 8 };

/** Arrow keys move along the board (one tab stop for all 64 squares); Enter and Space press. */
function onBoardKey(event) {
  let next = board.focus;
  if (event.key in STEPS) {
    const step = STEPS[event.key];
    const file = board.focus % 8;
    if ((step === -1 && file === 0) || (step === 1 && file === 7)) return;
    next = board.focus + step;
  } else if (event.key === 'Home') next = board.focus - (board.focus % 8);
  else if (event.key === 'End') next = board.focus - (board.focus % 8) + 7;
  else return;
  if (next < 0 || next > 63) return;
  event.preventDefault();
  board.cells[board.focus].tabIndex = -1;
  board.cells[next].tabIndex = 0;
  board.cells[next].focus();
}

/** Draws `rows` (the state's board) with the legal squares and the last move's marks. */
function drawBoard(rows, { legal = [], placed = null, flips = [] } = {}) {
  const legalSet = new Set(legal);
  const flipSet = new Set(flips);
  for (let index = 0; index < 64; index++) {
    const cell = board.cells[index];
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

/** A state's place in the game, to keep a late answer from drawing over a newer one. */
const progress = (state) => [isOver(state) ? 1 : 0, state.history.length, state.deadline ? 1 : 0];
const isOver = (state) => state.status === 'finished' || state.status === 'aborted';
const newer = (a, b) => {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
};

/**
 * Shows match `matchId` and plays it to its end: long polls while the opponent thinks, waits for a
 * click (or the deadline) on the guest's turn.
 */
async function follow(matchId, guest) {
  game?.stop.abort();
  const match = await call(`/v1/matches/${encodeURIComponent(matchId)}`);
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
  if (board.cells.length === 0) buildBoard();
  startTicking();
  let failures = 0;
  while (game === current && !current.stop.signal.aborted) {
    try {
      const state = current.state;
      if (state && isOver(state)) break;
      if (state && myTurn(state)) {
        const moved = await untilMoveOrDeadline(current, state);
        // Past the deadline without a move: the arena ends the game; read how.
        if (!moved && current.pending === null) await show(current, await readState(current, 0));
        continue;
      }
      await show(current, await readState(current, state ? WAIT_MS : 0));
      failures = 0;
    } catch (error) {
      if (current.stop.signal.aborted) return;
      if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
        // The guest was retired (idle too long) or the game is gone: nothing to resume.
        if (error.status === 401) localStorage.removeItem(GUEST_KEY);
        forgetMatch();
        stopTicking();
        throw error;
      }
      failures++;
      $('turn').textContent = `${errorMessage(error)} Trying again…`;
      const wait =
        error instanceof ApiError && error.retryAfter ? error.retryAfter * 1000 : 500 * 2 ** failures;
      await sleep(Math.min(wait, 15_000), current.stop.signal);
    }
  }
}

const myTurn = (state) => state.toMove === game.you && state.deadline !== null && state.status === 'running';

function readState(current, waitMs) {
  const query = waitMs > 0 ? `?waitMs=${waitMs}` : '';
  return call(`/v1/matches/${encodeURIComponent(current.matchId)}/state${query}`, {
    token: current.guest.token,
    signal: current.stop.signal,
  });
}

/**
 * Waits for the guest's move to be answered (true), or for its deadline to pass (false: the arena
 * then ends the game).
 */
function untilMoveOrDeadline(current, state) {
  const left = Date.parse(state.deadline) - serverNow();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), Math.max(0, left) + 1500);
    current.moved = () => {
      clearTimeout(timer);
      resolve(true);
    };
    current.stop.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** A click on a square: plays it when it is legal and the guest's turn. */
async function onSquare(square) {
  const current = game;
  const state = current?.state;
  if (!state || current.pending || !myTurn(state) || !state.legalMoves.includes(square)) return;
  current.pending = square;
  drawBoard(state.board, marksOf(current, state)); // no legal squares while the move is out
  $('turn').textContent = `You play ${square}…`;
  try {
    const after = await call(`/v1/matches/${encodeURIComponent(current.matchId)}/actions`, {
      method: 'POST',
      token: current.guest.token,
      body: { action: square, ply: state.ply },
    });
    current.pending = null;
    await show(current, after);
  } catch (error) {
    current.pending = null;
    if (error instanceof ApiError && error.status === 409) {
      await show(current, await readState(current, 0)).catch(() => {});
    } else {
      showError(error);
      if (game === current && current.state) await show(current, current.state);
    }
  } finally {
    current.moved?.();
  }
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
  if (current.state && !newer(progress(state), progress(current.state))) return;
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
  drawBoard(state.board, { ...marksOf(current, state), legal: myTurn(state) ? state.legalMoves : [] });
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
  return myTurn(state) ? 'Your turn: pick a square.' : `${opponentName(current)} is thinking…`;
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
  if (!isOver(state) && myTurn(state) && (!before || !myTurn(before))) lines.push('Your turn.');
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
  stopTicking();
}

// --- the clocks -----------------------------------------------------------------------------------

let ticker = 0;

function startTicking() {
  stopTicking();
  ticker = setInterval(tick, 200);
}

function stopTicking() {
  clearInterval(ticker);
  ticker = 0;
}

function formatClock(ms) {
  const clamped = Math.max(0, ms);
  const minutes = Math.floor(clamped / 60_000);
  const seconds = Math.floor((clamped % 60_000) / 1000);
  const tenths = Math.floor((clamped % 1000) / 100);
  return clamped < 10_000 ? `0:0${seconds}.${tenths}` : `${minutes}:${String(seconds).padStart(2, '0')}`;
}

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

function showError(error) {
  const box = $('play-error');
  box.textContent =
    error instanceof ApiError || error instanceof TypeError ? errorMessage(error) : error.message;
  box.hidden = false;
  box.focus();
}

/** Back to choosing a game, saying why the last one could not go on. */
async function lost(error) {
  showError(error);
  if (!$('game').hidden) {
    game = null;
    await showSetup().catch(() => {});
  }
}

function hideError() {
  $('play-error').hidden = true;
}

async function newGame() {
  game?.stop.abort();
  game = null;
  stopTicking();
  forgetMatch();
  const url = new URL(location.href);
  url.searchParams.delete('match');
  history.replaceState(null, '', url);
  $('title').textContent = 'Play Reversi';
  document.title = 'Play · Reversi Arena';
  try {
    await showSetup();
    $('opponent').focus();
  } catch (error) {
    showError(error);
  }
}

async function main() {
  $('setup-form').addEventListener('submit', startGame);
  $('new-game').addEventListener('click', newGame);
  const matchId = new URLSearchParams(location.search).get('match') ?? localStorage.getItem(MATCH_KEY);
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
