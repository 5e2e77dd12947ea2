// Helpers every page uses: the API client, DOM building without innerHTML, links and formatting.
// Data from the API (bot names, descriptions, fault messages) only ever reaches the page as text
// nodes or attribute values, so it cannot inject markup.

/** An API answer that was not 2xx, carrying its RFC 9457 problem document when there is one. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {{ detail?: string, title?: string, code?: string, errors?: { path: string, message: string }[] } | null} problem
   * @param {number | null} retryAfter seconds, from the Retry-After header
   */
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail ?? problem?.title ?? `The server answered ${status}.`);
    this.status = status;
    this.problem = problem;
    this.code = problem?.code ?? null;
    this.errors = Array.isArray(problem?.errors) ? problem.errors : [];
    this.retryAfter = retryAfter;
  }
}

/**
 * Calls the public API. Resolves with the parsed JSON (or null for 204); rejects with an ApiError for
 * any non-2xx answer, or a TypeError when the network fails.
 * @param {string} path e.g. '/v1/leaderboard'
 * @param {{ method?: string, body?: unknown, signal?: AbortSignal }} [options]
 */
export async function api(path, options = {}) {
  const headers = { accept: 'application/json', ...(options.headers ?? {}) };
  const method = options.method ?? 'GET';
  /** @type {RequestInit} */
  const init = { method, headers, signal: options.signal, cache: 'no-store' };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  // A signed-in browser's cookie goes with every call; a call that changes something must then
  // carry the session's CSRF token, unless it names a token of its own.
  if (method !== 'GET' && method !== 'HEAD' && headers.authorization === undefined) {
    const csrf = await csrfToken();
    if (csrf !== null) headers['x-csrf-token'] = csrf;
  }
  const res = await fetch(path, init);
  if (res.status === 204) return null;
  const type = res.headers.get('content-type') ?? '';
  const body = /json/.test(type) ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const retry = Number.parseInt(res.headers.get('retry-after') ?? '', 10);
    throw new ApiError(res.status, body, Number.isFinite(retry) ? retry : null);
  }
  return body;
}

/** @type {Promise<string | null> | null} */
let csrfLookup = null;

/** The CSRF token of this browser's session, asked once per page; null when it is not signed in. */
function csrfToken() {
  csrfLookup ??= fetch('/v1/session', { headers: { accept: 'application/json' }, cache: 'no-store' })
    .then((res) => (res.status === 200 ? res.json() : null))
    .then((session) => session?.csrfToken ?? null)
    .catch(() => null);
  return csrfLookup;
}

/** Calls the API as the bot whose token this is (the page's session, if any, stays out of it). */
export const apiWithToken = (path, token, options = {}) =>
  api(path, { ...options, headers: { authorization: `Bearer ${token}` } });

/** Forgets the session's CSRF token (after signing in or out, the next call asks again). */
export function forgetSession() {
  csrfLookup = null;
}

/** A short, human message for a failed call. */
export function errorMessage(error) {
  if (error instanceof ApiError) {
    if (error.status === 429) return `Too many requests; trying again in ${error.retryAfter ?? 'a few'} s.`;
    return error.message;
  }
  return 'The arena cannot be reached right now. Check your connection.';
}

/**
 * Builds an element. `props`: `class`, `text` (textContent), `dataset`, `on<event>` listeners, and any
 * other attribute (`true` sets it empty, `null`/`false`/`undefined` leaves it out). Children may be
 * nodes or strings (inserted as text, never parsed).
 * @example el('a', { href: botHref(id), class: 'bot' }, name)
 * @returns {HTMLElement}
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  setProps(node, props);
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Builds an SVG element, as `el` does. */
export function svg(tag, props = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setProps(node, props);
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

function setProps(node, props) {
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.setAttribute('class', value);
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
}

/** The page's id from `/bots/<id>` or `/matches/<id>` (or `?id=` as a fallback). */
export function idFromLocation() {
  const last = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
  return /^(bot|match)_/.test(last) ? last : (new URLSearchParams(location.search).get('id') ?? '');
}

export const botHref = (id) => `/bots/${encodeURIComponent(id)}`;
export const matchHref = (id) => `/matches/${encodeURIComponent(id)}`;
export const tournamentHref = (id) => `/tournaments/${encodeURIComponent(id)}`;

/** A link to a bot's page, its name as text. */
export const botLink = (ref) => el('a', { href: botHref(ref.id) }, ref.name);

export const otherColor = (color) => (color === 'black' ? 'white' : 'black');
export const capitalize = (text) => text.charAt(0).toUpperCase() + text.slice(1);

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export const formatDateTime = (iso) => dateTime.format(new Date(iso));
export const formatTime = (date) => timeOnly.format(date);

/** "3 minutes ago", "yesterday", … */
export function formatRelative(iso, now = Date.now()) {
  const seconds = (Date.parse(iso) - now) / 1000;
  const abs = Math.abs(seconds);
  if (abs < 45) return 'just now';
  const steps = [
    [3600, 60, 'minute'],
    [86_400, 3600, 'hour'],
    [2_592_000, 86_400, 'day'],
    [31_536_000, 2_592_000, 'month'],
    [Number.POSITIVE_INFINITY, 31_536_000, 'year'],
  ];
  const [, size, unit] = steps.find(([limit]) => abs < limit);
  return relative.format(Math.round(seconds / size), unit);
}

/** A `<time>` showing a relative time, the full date in its tooltip. */
export function timeEl(iso, now = Date.now()) {
  return el('time', { datetime: iso, title: formatDateTime(iso) }, formatRelative(iso, now));
}

export const formatRating = (value) => String(Math.round(value));

/** A duration in words, as people say it: "500 ms", "1 s", "1.5 s", "1 min", "2 min 30 s", "1 h". */
export function formatDuration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return [hours && `${hours} h`, minutes && `${minutes} min`, seconds && `${seconds} s`]
    .filter(Boolean)
    .join(' ');
}

/** A match's time control in words: "1 s a move + 5 s bank", "1 min a move, no bank". */
export function timeControlText({ timeLimitMs, overageMs }) {
  const perMove = `${formatDuration(timeLimitMs)} a move`;
  return overageMs > 0 ? `${perMove} + ${formatDuration(overageMs)} bank` : `${perMove}, no bank`;
}

/** A scheduled start counted down: "starts in 12 min 3 s"; "starting…" once its time has come. */
export function countdownText(iso, now = Date.now()) {
  const ms = Date.parse(iso) - now;
  return ms <= 0 ? 'starting…' : `starts in ${formatDuration(Math.ceil(ms / 1000) * 1000)}`;
}

/** A countdown to `iso` that `tickCountdowns` keeps current. */
export const countdownEl = (iso) =>
  el('span', { class: 'countdown', dataset: { startsAt: iso } }, countdownText(iso));

/** Counts every countdown on the page down, once a second (once per page, however often called). */
let countingDown = false;
export function tickCountdowns() {
  if (countingDown) return;
  countingDown = true;
  setInterval(() => {
    for (const node of document.querySelectorAll('[data-starts-at]')) {
      node.textContent = countdownText(node.dataset.startsAt);
    }
  }, 1000);
}

/** "+12", "−7", "±0" with a real minus sign. */
export function formatDelta(value) {
  const rounded = Math.round(value);
  if (rounded === 0) return '±0';
  return rounded > 0 ? `+${rounded}` : `\u2212${Math.abs(rounded)}`;
}

/** A small coloured disc (decorative; the text next to it names the colour). */
export const chip = (color) => el('span', { class: `chip ${color}`, 'aria-hidden': 'true' });

/** Replaces a container's children. */
export function replaceChildren(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

/** How a match ended, in words, from a bot's point of view or a neutral one. */
export const REASON_TEXT = {
  completed: 'played to the end',
  timeout: 'ran out of time',
  'bot-error': 'failed to answer (connection error or non-2xx status)',
  'invalid-response': 'answered something that is not a valid action',
  'illegal-move': 'played an illegal move',
  'no-show': 'faulted before making a move of its own',
  aborted: 'stopped by the arena',
};
