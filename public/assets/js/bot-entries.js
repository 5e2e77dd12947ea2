// The bot page's "Enter an event": the open tournaments (GET /v1/tournaments), each with a button
// that enters this bot with its own token (event-entry.js). Shown for active bots, not for guests.
import { api, countdownEl, el, replaceChildren, tickCountdowns, tournamentHref } from './common.js';
import { changeEntry, showEntryOutcome } from './event-entry.js';

const $ = (id) => document.getElementById(id);
/** How many of the newest tournaments are looked through for open ones. */
const LOOKED_AT = 50;

function eventItem(t) {
  return el(
    'li',
    { dataset: { tournamentId: t.id } },
    el('a', { href: tournamentHref(t.id) }, t.name),
    ' · ',
    t.startsAt ? countdownEl(t.startsAt) : 'started by the admin',
    ` · ${t.entrantCount} entered · `,
    el('button', { type: 'button', class: 'enter', 'aria-label': `Enter ${t.name}` }, 'Enter'),
  );
}

/** Lists the open tournaments for `bot`, or leaves the section hidden when there are none or it may not enter. */
let shownBot = null;

export async function showOpenEvents(bot) {
  shownBot = bot.id;
  if (bot.status !== 'active' || bot.guest) return;
  const page = await api(`/v1/tournaments?limit=${LOOKED_AT}`);
  const open = page.items.filter((t) => t.status === 'open');
  if (open.length === 0) return;
  replaceChildren($('events-list'), open.map(eventItem));
  $('events').hidden = false;
  tickCountdowns();
}

$('events-list').addEventListener('click', async (event) => {
  const button = event.target.closest('button.enter');
  if (!button) return;
  const { tournamentId } = button.closest('li').dataset;
  button.disabled = true;
  const boxes = { done: $('events-done'), failed: $('events-error') };
  try {
    showEntryOutcome(boxes, {
      message: await changeEntry(tournamentId, $('events-token').value.trim(), { botId: shownBot }),
    });
  } catch (error) {
    showEntryOutcome(boxes, { error: error.message });
  } finally {
    button.disabled = false;
  }
});
