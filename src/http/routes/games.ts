import { Router } from 'express';
import { ARENA_GAME, ARENA_OPENINGS, defaultRules, ratedRules } from '../../arena/matches.ts';
import type { Config } from '../../config.ts';
import type { components } from '../../contract/index.ts';
import { GAME_NOTATION, GAME_OVERVIEW, GAME_RULES } from '../../game/reversi-description.ts';
import { type OpenApiSpec, standaloneSchema } from '../spec.ts';

type GameDescription = components['schemas']['GameDescription'];

/** /v1/games/reversi: the game, its rules and the bot protocol, as data. */
export function gamesRouter(spec: OpenApiSpec, limits: Config['limits']): Router {
  const stateExample = (
    spec.document.components.schemas.BotState as { example: GameDescription['example']['state'] }
  ).example;
  const description: GameDescription = {
    id: ARENA_GAME.id,
    name: 'Reversi',
    overview: GAME_OVERVIEW,
    rules: [...GAME_RULES],
    notation: { ...GAME_NOTATION },
    defaultRules: defaultRules(limits),
    ratedRules: ratedRules(limits),
    limits: {
      timeLimitMs: { ...limits.timeLimitMs },
      overageMs: { ...limits.overageMs },
      guestTimeLimitMs: { min: limits.timeLimitMs.min, ...limits.guest.timeLimitMs },
      challengeTimeLimitMs: {
        min: limits.timeLimitMs.min,
        max: limits.challengeTimeLimitMs.max,
        default: limits.timeLimitMs.default,
      },
    },
    openings: ARENA_OPENINGS.map(({ id, moves, meanScore }) => ({ id, moves: [...moves], meanScore })),
    stateSchema: standaloneSchema(spec, 'BotState'),
    actionSchema: standaloneSchema(spec, 'BotAction'),
    example: { state: stateExample, action: { action: stateExample.legalMoves[0] ?? 'e3' } },
  };
  const router = Router();
  router.get('/v1/games/reversi', (_req, res) => {
    res.json(description);
  });
  return router;
}
