// What the two games of the /play page share: the API called with the guest's token and read on the
// server's clock, the guest and its game kept in this browser, the loop that follows a game to its end,
// and the page's error box. play.js (a bot across the board) and play-solo.js (the solo puzzle) use it.
import { ApiError, errorMessage } from './common.js';

export const GUEST_KEY = 'reversi-arena.guest';
const MATCH_KEY = 'reversi-arena.play.match';
/** How long one long poll waits for the guest's turn (the API allows up to 30 s). */
export const WAIT_MS = 25_000;

export const $ = (id) => document.getElementById(id);

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
export function serverNow() {
  const offset = Number.isFinite(skew.low) && Number.isFinite(skew.high) ? (skew.low + skew.high) / 2 : 0;
  return Date.now() + offset;
}

/**
 * Calls the API, with the guest's token when given. Resolves with the JSON answer; rejects with an
 * ApiError (its problem's message) or a TypeError when the network fails.
 */
export async function call(path, { method = 'GET', body, token, signal } = {}) {
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

// --- the guest and its game, kept in this browser -------------------------------------------------

export function storedGuest() {
  try {
    const guest = JSON.parse(localStorage.getItem(GUEST_KEY) ?? 'null');
    return guest && typeof guest.token === 'string' && typeof guest.id === 'string' ? guest : null;
  } catch {
    return null;
  }
}

/** The guest of this browser: the stored one while its token works, else a new one (registered once). */
export async function ensureGuest() {
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

/** The game this browser plays, from the address (`?match=`) or from its memory; null when none. */
export function storedMatchId() {
  return new URLSearchParams(location.search).get('match') ?? localStorage.getItem(MATCH_KEY);
}

/** Keeps the game in the address and in this browser, so that a reload resumes it. */
export function rememberMatch(matchId) {
  localStorage.setItem(MATCH_KEY, matchId);
  const url = new URL(location.href);
  for (const param of ['opponent', 'layout', 'scoring']) url.searchParams.delete(param);
  url.searchParams.set('match', matchId);
  history.replaceState(null, '', url);
}

export function forgetMatch() {
  localStorage.removeItem(MATCH_KEY);
}

// --- following a game -----------------------------------------------------------------------------

export const isOver = (state) => state.status === 'finished' || state.status === 'aborted';
/** The guest's turn: the arena waits for its action (it publishes the deadline when it does). */
export const myTurn = (state, you) =>
  state.toMove === you && state.deadline !== null && state.status === 'running';

/** A state's place in the game, to keep a late answer from drawing over a newer one. */
const progress = (state) => [isOver(state) ? 1 : 0, state.history.length, state.deadline ? 1 : 0];

/** Whether `state` is at least as far in the game as `before` (no `before`: it is). */
export function newer(state, before) {
  if (!before) return true;
  const a = progress(state);
  const b = progress(before);
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

/** The match's state as the guest sees it, after a long poll of up to `waitMs` when given. */
export function readState(current, waitMs) {
  const query = waitMs > 0 ? `?waitMs=${waitMs}` : '';
  return call(`/v1/matches/${encodeURIComponent(current.matchId)}/state${query}`, {
    token: current.guest.token,
    signal: current.stop.signal,
  });
}

/**
 * Plays `current` (the game on screen: `matchId`, `guest`, `you`, `state`, `pending`, `stop`) to its
 * end: long polls while the guest has nothing to do, and on its turn waits for its move (which calls
 * `current.moved`) or for the deadline. Each state read goes to `show`; `trouble(text)` says that a
 * read failed and is retried; `timer` (see `ticking`) runs from now on. Rejects when the guest or the
 * game is gone (401, 403, 404), the timer stopped: nothing to resume, so the match is forgotten (and
 * the guest too, on a 401).
 */
export async function playToTheEnd(current, { isCurrent, show, trouble, timer }) {
  timer.start();
  let failures = 0;
  while (isCurrent() && !current.stop.signal.aborted) {
    try {
      const state = current.state;
      if (state && isOver(state)) break;
      if (state && myTurn(state, current.you)) {
        const moved = await untilMoveOrDeadline(current, state);
        // Past the deadline without a move: the arena ends the game; read how.
        if (!moved && current.pending === null) await show(await readState(current, 0));
        continue;
      }
      await show(await readState(current, state ? WAIT_MS : 0));
      failures = 0;
    } catch (error) {
      if (current.stop.signal.aborted) return;
      if (error instanceof ApiError && [401, 403, 404].includes(error.status)) {
        // The guest was retired (idle too long) or the game is gone: nothing to resume.
        if (error.status === 401) localStorage.removeItem(GUEST_KEY);
        forgetMatch();
        timer.stop();
        throw error;
      }
      failures++;
      trouble(`${errorMessage(error)} Trying again…`);
      const wait =
        error instanceof ApiError && error.retryAfter ? error.retryAfter * 1000 : 500 * 2 ** failures;
      await sleep(Math.min(wait, 15_000), current.stop.signal);
    }
  }
}

/**
 * Posts the guest's move (`body`, the action with its ply) in `current` and shows the state it
 * answers. A 409 (the game moved on meanwhile) shows the state as it now is; any other error goes to
 * the error box, and the state as it was is drawn again (its legal squares back). Either way the
 * wait for the move (`current.moved`) ends.
 */
export async function postMove(current, body, { isCurrent, show }) {
  try {
    const after = await call(`/v1/matches/${encodeURIComponent(current.matchId)}/actions`, {
      method: 'POST',
      token: current.guest.token,
      body,
    });
    current.pending = null;
    await show(after);
  } catch (error) {
    current.pending = null;
    if (error instanceof ApiError && error.status === 409) {
      await show(await readState(current, 0)).catch(() => {});
    } else {
      showError(error);
      if (isCurrent() && current.state) await show(current.state);
    }
  } finally {
    current.moved?.();
  }
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

export const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** A move's time left as a clock shows it: "1:00", "0:42", then tenths under 10 s ("0:09.3"). */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  const minutes = Math.floor(clamped / 60_000);
  const seconds = Math.floor((clamped % 60_000) / 1000);
  const tenths = Math.floor((clamped % 1000) / 100);
  return clamped < 10_000 ? `0:0${seconds}.${tenths}` : `${minutes}:${String(seconds).padStart(2, '0')}`;
}

// --- the page's error box -------------------------------------------------------------------------

export function showError(error) {
  const box = $('play-error');
  box.textContent =
    error instanceof ApiError || error instanceof TypeError ? errorMessage(error) : error.message;
  box.hidden = false;
  box.focus();
}

export function hideError() {
  $('play-error').hidden = true;
}

/**
 * A tick every 200 ms while a game's clock runs (the move timer): `start` (again from now) and `stop`.
 * One per game kind, each with its own tick.
 */
export function ticking(tick) {
  let timer = 0;
  return {
    start() {
      clearInterval(timer);
      timer = setInterval(tick, 200);
    },
    stop() {
      clearInterval(timer);
      timer = 0;
    },
  };
}
