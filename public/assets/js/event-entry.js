// Entering a bot in an open tournament from a page, with the bot's own token (pasted; it stays in
// the page's memory, never stored nor put in the address): POST or DELETE
// /v1/tournaments/{id}/entries. The tournament page and the bot page both offer it.
import { ApiError, apiWithToken, errorMessage } from './common.js';

const entries = (id) => `/v1/tournaments/${encodeURIComponent(id)}/entries`;

/**
 * Enters (or, with `leave`, withdraws) the token's bot, which must be `botId` when given; resolves
 * with a sentence saying so, rejects with an Error whose message says why not.
 */
export async function changeEntry(tournamentId, token, { leave = false, botId = null } = {}) {
  if (!token) throw new Error("Paste your bot's token first.");
  let me;
  try {
    me = await apiWithToken('/v1/bots/me', token);
  } catch (error) {
    throw refusal(error);
  }
  if (botId !== null && me.id !== botId) {
    throw new Error(`That is the token of ${me.name}, not of this bot.`);
  }
  try {
    await apiWithToken(entries(tournamentId), token, { method: leave ? 'DELETE' : 'POST' });
    return leave ? `${me.name} has left the tournament.` : `${me.name} is entered.`;
  } catch (error) {
    throw refusal(error);
  }
}

function refusal(error) {
  return new Error(
    error instanceof ApiError && error.status === 401
      ? 'That token is not valid: check that you pasted the whole of it.'
      : errorMessage(error),
  );
}

/**
 * Shows the outcome of `changeEntry` in a page's two boxes: `done` (a status line) or `failed` (an
 * alert, focused so that a screen reader reads it).
 */
export function showEntryOutcome({ done, failed }, outcome) {
  done.hidden = outcome.error !== undefined;
  failed.hidden = outcome.error === undefined;
  if (outcome.error === undefined) {
    done.textContent = outcome.message;
  } else {
    failed.textContent = outcome.error;
    failed.focus();
  }
}
