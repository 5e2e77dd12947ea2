import { describe, expect, it } from 'vitest';
import { FAULT_REASONS, type FaultDetails } from './faults.ts';
import {
  countsForRatings,
  type FinishedResult,
  type FinishInput,
  planFinish,
  type RatingRule,
  type StandingBot,
} from './finish-plan.ts';

const NOW = 1_700_000_000_000;
const MINUTE = 60_000;
const pauses = { afterFaults: 3, backoff: { firstMs: 5 * MINUTE, maxMs: 24 * 60 * MINUTE } };
const SECRET_URL = 'http://10.0.0.7:4001/?key=secret';

/** A winner takes 10 points from the loser; a draw moves nothing. */
const rate: RatingRule = (black, white, blackScore) => ({
  black: black.rating + 20 * (blackScore - 0.5),
  white: white.rating - 20 * (blackScore - 0.5),
});

function bot(id: string, overrides: Partial<StandingBot> = {}): StandingBot {
  return {
    id,
    rating: 1500,
    ratedGames: 4,
    consecutiveFaults: 0,
    status: 'active',
    house: null,
    paused: null,
    ...overrides,
  };
}

const refused: FaultDetails = {
  player: 'black',
  reason: 'bot-error',
  cause: 'connection-refused',
  message: `connection refused by ${SECRET_URL}`,
  latencyMs: 3,
};

const results = {
  blackWins: { winner: 'black', reason: 'completed' },
  draw: { winner: null, reason: 'completed' },
  blackFaults: { winner: 'white', reason: 'bot-error', fault: refused },
  blackNoShow: { winner: 'white', reason: 'no-show', fault: refused },
  // A no-show recorded before no-shows counted as faults, without a winner.
  blackOldNoShow: { winner: null, reason: 'no-show', fault: refused },
  aborted: { winner: null, reason: 'aborted' },
} satisfies Record<string, FinishedResult>;

function input(overrides: Partial<FinishInput<FinishedResult>> = {}): FinishInput<FinishedResult> {
  return {
    match: {
      id: 'match_1',
      rated: true,
      black: { id: 'bot_b', name: 'blackbird' },
      white: { id: 'bot_w', name: 'whitetail' },
      createdBy: 'admin',
    },
    bots: { black: bot('bot_b'), white: bot('bot_w') },
    result: results.blackWins,
    now: NOW,
    rate,
    pauses,
    ...overrides,
  };
}

const updateOf = (plan: ReturnType<typeof planFinish>, botId: string) =>
  plan.bots.find((update) => update.botId === botId);

describe('planFinish', () => {
  describe('when a rated match is played out', () => {
    const plan = planFinish(input());

    it('finishes the match at the time given', () => {
      expect(plan).toMatchObject({ status: 'finished', finishedAt: NOW, result: results.blackWins });
    });

    it('moves both ratings by the rule', () => {
      expect(plan.ratings).toEqual({
        black: { before: 1500, after: 1510 },
        white: { before: 1500, after: 1490 },
      });
    });

    it('counts a rated game for each bot, with its line of rating history', () => {
      expect(updateOf(plan, 'bot_b')?.tally).toBe('wins');
      expect(updateOf(plan, 'bot_b')?.rated).toEqual({
        rating: 1510,
        onLeaderboard: true,
        ratedGames: 5,
        history: {
          matchId: 'match_1',
          at: NOW,
          opponent: { id: 'bot_w', name: 'whitetail' },
          before: 1500,
          after: 1510,
          score: 1,
        },
      });
      expect(updateOf(plan, 'bot_w')).toMatchObject({ tally: 'losses', rated: { rating: 1490 } });
    });

    it('gives the Bradley–Terry fit its line, from black', () => {
      expect(plan.ratedResult).toEqual({ black: 'bot_b', white: 'bot_w', score: 1 });
    });

    it('resets both fault streaks and pauses no one', () => {
      const streaky = planFinish(
        input({ bots: { black: bot('bot_b', { consecutiveFaults: 2 }), white: bot('bot_w') } }),
      );
      expect(streaky.bots.map((update) => [update.consecutiveFaults, update.pause])).toEqual([
        [0, null],
        [0, null],
      ]);
    });

    it('tells both players the same result', () => {
      expect(plan.events).toEqual({
        black: { matchId: 'match_1', status: 'finished', result: results.blackWins },
        white: { matchId: 'match_1', status: 'finished', result: results.blackWins },
      });
    });
  });

  it('scores a draw as half a point for each side', () => {
    const plan = planFinish(input({ result: results.draw }));
    expect(plan.bots.map((update) => update.tally)).toEqual(['draws', 'draws']);
    expect(plan.ratedResult?.score).toBe(0.5);
  });

  it('keeps a retired bot off the leaderboard while its rating still moves', () => {
    const plan = planFinish(
      input({ bots: { black: bot('bot_b', { status: 'retired' }), white: bot('bot_w') } }),
    );
    expect(updateOf(plan, 'bot_b')?.rated).toMatchObject({ rating: 1510, onLeaderboard: false });
    expect(updateOf(plan, 'bot_w')?.rated?.onLeaderboard).toBe(true);
  });

  it('rates nobody in a match a guest plays, even one marked rated', () => {
    const plan = planFinish(input({ bots: { black: bot('bot_b', { guest: true }), white: bot('bot_w') } }));
    expect(plan.ratings).toBeNull();
    expect(plan.ratedResult).toBeNull();
    expect(plan.bots.map((update) => [update.tally, update.rated])).toEqual([
      [null, null],
      [null, null],
    ]);
  });

  describe.each([
    ['lost by a fault', results.blackFaults],
    ['lost by a no-show', results.blackNoShow],
    ['lost by a no-show recorded without a winner', results.blackOldNoShow],
  ])('when a rated match is %s', (_name, result) => {
    const plan = planFinish(input({ result }));

    it('lowers the rating of the bot at fault alone, by the loss the rule gives it', () => {
      expect(plan.ratings).toEqual({
        black: { before: 1500, after: 1490 },
        white: { before: 1500, after: 1500 },
      });
      expect(updateOf(plan, 'bot_b')?.rated).toMatchObject({
        rating: 1490,
        ratedGames: 5,
        history: { before: 1500, after: 1490, score: 0 },
      });
    });

    it("leaves the opponent's rating, rated games and history as they were, and counts its win", () => {
      expect(updateOf(plan, 'bot_w')).toMatchObject({ tally: 'wins', rated: null });
      expect(updateOf(plan, 'bot_b')?.tally).toBe('losses');
    });

    it('gives the Bradley–Terry fit nothing: a forfeit says nothing of the winner', () => {
      expect(plan.ratedResult).toBeNull();
    });

    it("extends the faulting bot's streak and resets its opponent's", () => {
      expect(updateOf(plan, 'bot_b')?.consecutiveFaults).toBe(1);
      expect(updateOf(plan, 'bot_w')?.consecutiveFaults).toBe(0);
    });

    it('shows the fault in full to the bot at fault only, and its public text to the opponent', () => {
      expect(plan.events.black.result.fault?.message).toContain(SECRET_URL);
      expect(plan.events.white.result.fault?.message).toBe("the bot's server refused the connection");
    });
  });

  describe('pausing a bot for its faults in a row', () => {
    it.each([
      ['pauses a bot, push or pull alike, whose streak reaches the limit', {}, 3, true],
      ['does not pause below the limit', { consecutiveFaults: 0 }, 3, false],
      ['never pauses with a limit of 0', {}, 0, false],
      ['never pauses a house bot', { house: 'greedy' }, 3, false],
      ['never pauses a guest', { guest: true }, 3, false],
      ['leaves a bot still paused as it was', { paused: { since: 1, until: NOW + 1, level: 1 } }, 3, false],
      ['pauses again a bot whose pause has ended', { paused: { since: 1, until: NOW, level: 1 } }, 3, true],
    ] as const)('%s', (_name, overrides, afterFaults, paused) => {
      const black = bot('bot_b', { consecutiveFaults: 2, ...overrides });
      const plan = planFinish(
        input({
          bots: { black, white: bot('bot_w') },
          result: results.blackFaults,
          pauses: { ...pauses, afterFaults },
        }),
      );
      expect(updateOf(plan, 'bot_b')?.pause !== null).toBe(paused);
    });

    it('pauses for longer each time a pause follows soon after the last, and starts over after a quiet day', () => {
      const pauseAfter = (last: StandingBot['paused']) =>
        updateOf(
          planFinish(
            input({
              bots: { black: bot('bot_b', { consecutiveFaults: 5, paused: last }), white: bot('bot_w') },
              result: results.blackFaults,
            }),
          ),
          'bot_b',
        )?.pause;
      expect(pauseAfter({ since: 0, until: NOW - MINUTE, level: 2 })).toMatchObject({
        since: NOW,
        until: NOW + 80 * MINUTE,
        level: 3,
      });
      expect(pauseAfter({ since: 0, until: NOW - 25 * 60 * MINUTE, level: 4 })).toMatchObject({
        until: NOW + 5 * MINUTE,
        level: 1,
      });
    });

    it('gives a public reason that names the fault by its generic text, and the owner the full message', () => {
      const black = bot('bot_b', { consecutiveFaults: 2 });
      const plan = planFinish(input({ bots: { black, white: bot('bot_w') }, result: results.blackFaults }));
      expect(updateOf(plan, 'bot_b')?.pause).toEqual({
        reason:
          "its last 3 matches ended by its faults (last: bot-error: the bot's server refused the connection)",
        detail: `connection refused by ${SECRET_URL}`,
        since: NOW,
        until: NOW + 5 * MINUTE,
        level: 1,
      });
    });

    it("names the result's reason when the fault has none (recorded before faults had reasons)", () => {
      const { reason: _reason, ...bare } = refused;
      const black = bot('bot_b', { consecutiveFaults: 2 });
      const result = { winner: 'white', reason: 'timeout', fault: bare } as const;
      const plan = planFinish(input({ bots: { black, white: bot('bot_w') }, result }));
      expect(updateOf(plan, 'bot_b')?.pause?.reason).toMatch(/\(last: timeout: /);
    });

    it('cuts the reason at 300 characters and the detail at 500', () => {
      const black = bot('bot_b', { consecutiveFaults: 2 });
      const long = { ...refused, cause: 'illegal-move', message: 'x'.repeat(1000) } as const;
      const result = { winner: 'white', reason: 'illegal-move', fault: long } as const;
      const pause = updateOf(
        planFinish(input({ bots: { black, white: bot('bot_w') }, result })),
        'bot_b',
      )?.pause;
      expect(pause?.reason).toHaveLength(300);
      expect(pause?.detail).toHaveLength(500);
    });
  });

  it('counts a no-show in the streak of the bot that never moved', () => {
    const plan = planFinish(input({ result: results.blackNoShow }));
    expect(updateOf(plan, 'bot_b')?.consecutiveFaults).toBe(1);
    expect(updateOf(plan, 'bot_w')?.consecutiveFaults).toBe(0);
  });

  describe('when the match is aborted', () => {
    const black = bot('bot_b', { consecutiveFaults: 2 });
    const plan = planFinish(input({ bots: { black, white: bot('bot_w') }, result: results.aborted }));

    it('ends it as aborted, for no rating', () => {
      expect(plan.status).toBe('aborted');
      expect(plan.ratings).toBeNull();
      expect(plan.ratedResult).toBeNull();
    });

    it('leaves both fault streaks as they are', () => {
      expect(plan.bots.map((update) => [update.consecutiveFaults, update.pause])).toEqual([
        [null, null],
        [null, null],
      ]);
    });

    it('tells both players', () => {
      expect(plan.events.white).toEqual({ matchId: 'match_1', status: 'aborted', result: results.aborted });
    });
  });

  it('moves no rating in an unrated match, but counts faults', () => {
    const plan = planFinish(
      input({ match: { ...input().match, rated: false }, result: results.blackFaults }),
    );
    expect(plan.ratings).toBeNull();
    expect(plan.ratedResult).toBeNull();
    expect(updateOf(plan, 'bot_b')).toMatchObject({ rated: null, consecutiveFaults: 1 });
  });

  describe('in a challenge', () => {
    const challenge = (createdBy: string, bots = input().bots) =>
      planFinish(
        input({ match: { ...input().match, rated: false, createdBy }, result: results.blackFaults, bots }),
      );

    it("leaves the challenged bot's streak as it was, faulting or not, and never pauses it", () => {
      const plan = challenge('bot_w', { black: bot('bot_b', { consecutiveFaults: 2 }), white: bot('bot_w') });
      expect(updateOf(plan, 'bot_b')).toMatchObject({ consecutiveFaults: null, pause: null });
    });

    it("never clears its maker's streak: a partner that never moves would clear it for free", () => {
      const plan = challenge('bot_w', { black: bot('bot_b'), white: bot('bot_w', { consecutiveFaults: 3 }) });
      expect(updateOf(plan, 'bot_w')).toMatchObject({ consecutiveFaults: null });
    });

    it("counts in the challenger's own streak", () => {
      const plan = challenge('bot_b', { black: bot('bot_b', { consecutiveFaults: 2 }), white: bot('bot_w') });
      expect(updateOf(plan, 'bot_b')).toMatchObject({ consecutiveFaults: 3 });
      expect(updateOf(plan, 'bot_b')?.pause).not.toBeNull();
      expect(updateOf(plan, 'bot_w')).toMatchObject({ consecutiveFaults: null });
    });
  });

  it('plans nothing for a player with no record, and rates no one', () => {
    const plan = planFinish(input({ bots: { black: null, white: bot('bot_w') } }));
    expect(plan.bots.map((update) => update.botId)).toEqual(['bot_w']);
    expect(plan.ratings).toBeNull();
    expect(updateOf(plan, 'bot_w')?.rated).toBeNull();
  });
});

describe('countsForRatings', () => {
  it.each([
    ['completed', true],
    ...FAULT_REASONS.map((reason) => [reason, true] as const),
    ['no-show', true],
    ['aborted', false],
  ] as const)('%s: %s', (reason, counts) => {
    expect(countsForRatings(reason)).toBe(counts);
  });
});
