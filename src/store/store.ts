import type { AccountStore } from './account-store.ts';
import type { BotStore } from './bot-store.ts';
import type { GuestStore } from './guest-store.ts';
import type { HealthCheck, LockStore } from './lock-store.ts';
import type { MatchStore } from './match-store.ts';
import type { RatingStore } from './rating-store.ts';
import type { SignInStore } from './sign-in-store.ts';
import type { SoloLeagueStore } from './solo-store.ts';
import type { TournamentStore } from './tournament-store.ts';

/**
 * Every store of one Redis together, as a process' wiring builds them: each service takes only the
 * stores it uses (`Pick<Stores, 'bots' | 'matches'>`, or one of them).
 */
export interface Stores {
  readonly bots: BotStore;
  readonly matches: MatchStore;
  readonly ratings: RatingStore;
  readonly guests: GuestStore;
  readonly tournaments: TournamentStore;
  readonly accounts: AccountStore;
  readonly signIns: SignInStore;
  readonly locks: LockStore;
  readonly health: HealthCheck;
  readonly soloLeague: SoloLeagueStore;
}
