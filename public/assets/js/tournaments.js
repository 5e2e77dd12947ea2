// The tournaments list: GET /v1/tournaments, newest first, "older tournaments" by cursor; open
// events that start by themselves count down to their start.
import { api, countdownEl, el, errorMessage, tickCountdowns, timeEl, tournamentHref } from './common.js';

const $ = (id) => document.getElementById(id);
const FORMAT_TEXT = { 'round-robin': 'round robin', swiss: 'Swiss', gauntlet: 'gauntlet' };
let nextCursor = null;

function statusCell(t) {
  if (t.status === 'open' && t.startsAt) return ['open, ', countdownEl(t.startsAt)];
  return [t.status];
}

function row(t) {
  return el(
    'tr',
    { dataset: { tournamentId: t.id } },
    el('th', { scope: 'row' }, el('a', { href: tournamentHref(t.id) }, t.name)),
    el('td', {}, FORMAT_TEXT[t.format] ?? t.format),
    el('td', {}, ...statusCell(t)),
    el('td', { class: 'num' }, String(t.entrantCount)),
    el('td', { class: 'num' }, t.roundCount === null ? '—' : String(t.roundCount)),
    el('td', {}, t.openings),
    el('td', {}, timeEl(t.createdAt)),
  );
}

async function loadPage() {
  const query = new URLSearchParams({ limit: '50' });
  if (nextCursor) query.set('cursor', nextCursor);
  const page = await api(`/v1/tournaments?${query}`);
  $('list-body').append(...page.items.map(row));
  nextCursor = page.nextCursor;
  const shown = $('list-body').children.length;
  $('list-wrap').hidden = shown === 0;
  $('list-empty').hidden = shown > 0;
  $('list-more-wrap').hidden = !nextCursor;
  $('list-status').textContent = `${shown} ${shown === 1 ? 'tournament' : 'tournaments'} shown.`;
}

function fail(error) {
  $('list-error').textContent = errorMessage(error);
  $('list-error').hidden = false;
  $('list-status').textContent = '';
}

$('list-more').addEventListener('click', () => loadPage().catch(fail));
tickCountdowns();
loadPage().catch(fail);
