import type { BotAnnouncement } from '../store/match-store.ts';
import type { GuardedWrites } from './guarded-writes.ts';
import { BOT_EVENTS_KEPT, type StoreKeys } from './keys.ts';

/**
 * Appends `event` to its bot's stream (kept to about BOT_EVENTS_KEPT) and wakes the waits on it,
 * as part of `tx`: a bot hears of what happened exactly when it happened, never of what a failed
 * write did not do.
 */
export function writeBotEvent(tx: GuardedWrites, keys: StoreKeys, event: BotAnnouncement): void {
  const stream = keys.botEvents(event.botId);
  tx.write('XADD', stream, 'MAXLEN', '~', BOT_EVENTS_KEPT, '*', 'type', event.type, 'data', event.data);
  tx.write('SPUBLISH', keys.streamAppends, stream);
}
