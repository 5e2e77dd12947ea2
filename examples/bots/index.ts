/**
 * The example push bots, for tests, benchmarks and simulations: start one over HTTP with `startBot`,
 * or call its move-choosing function directly.
 */

export { chooseAlphaBeta, DEFAULT_DEPTH, evaluate } from './alphabeta.ts';
export { chooseGreedy } from './greedy.ts';
export { type Chooser, playGame, turnOf } from './play.ts';
export { type PullBotOptions, runPullBot } from './pull.ts';
export { chooseRandom, type Random, seededRandom } from './random.ts';
export { BOT_KINDS, type BotKind, type BotOptions, chooser, type RunningBot, startBot } from './server.ts';
export { type Action, type Candidate, candidates, NoMoveError, type Turn, turnSchema } from './turn.ts';
