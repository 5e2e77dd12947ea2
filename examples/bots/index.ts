/**
 * The example push bots, for tests, benchmarks and simulations: start one over HTTP with `startBot`,
 * or call its move-choosing function directly.
 */

export { chooseAlphaBeta, DEFAULT_DEPTH, evaluate } from '../../src/house/alphabeta.ts';
export { chooseGreedy } from '../../src/house/greedy.ts';
export { type Chooser, playGame, turnOf } from '../../src/house/play.ts';
export { chooseRandom, type Random, seededRandom } from '../../src/house/random.ts';
export {
  type Action,
  type Candidate,
  candidates,
  NoMoveError,
  type Turn,
  turnSchema,
} from '../../src/house/turn.ts';
export { type PullBotOptions, runPullBot } from './pull.ts';
export { BOT_KINDS, type BotKind, type BotOptions, chooser, type RunningBot, startBot } from './server.ts';
