import { describe, expect, it } from 'vitest';
import type { MatchRecord, MatchResult } from '../model/records.ts';
import type { TournamentRound } from '../store/tournament-store.ts';
import {
  maxSwissRounds,
  planRound,
  type RoundInput,
  resultsOf,
  roundCountOf,
  roundEnded,
  scoredResult,
  seedEntrants,
} from './tournament-plan.ts';

function drawer() {
  let n = 0;
  return () => `o-${String(++n).padStart(8, '0')}`;
}

function input(overrides: Partial<RoundInput> & Pick<RoundInput, 'tournament'>): RoundInput {
  return {
    seeds: ['a', 'b', 'c', 'd'],
    number: 1,
    rounds: [],
    results: { games: [] },
    withdrawn: new Set(),
    drawOpening: drawer(),
    ...overrides,
  };
}

function match(result: MatchResult | null, status: MatchRecord['status'] = 'finished'): MatchRecord {
  return {
    id: 'match_1',
    black: { id: 'b', name: 'b' },
    white: { id: 'w', name: 'w' },
    rules: { firstPlayer: 'white', captureRule: 'all', scoring: 'discs', timeLimitMs: 1000, overageMs: 0 },
    rated: false,
    status,
    createdBy: 'admin',
    createdAt: 0,
    startedAt: null,
    finishedAt: null,
    moveCount: 0,
    result,
    ratings: null,
  };
}

const discs = { black: 30, white: 34 };

describe('seedEntrants', () => {
  it.each([
    {
      name: 'orders by rating, then by entry',
      candidates: [
        { id: 'a', rating: 1500, retired: false },
        { id: 'b', rating: 1600, retired: false },
        { id: 'c', rating: 1500, retired: false },
      ],
      challenger: null,
      seeds: ['b', 'a', 'c'],
    },
    {
      name: 'leaves retired bots out',
      candidates: [
        { id: 'a', rating: 1700, retired: true },
        { id: 'b', rating: 1600, retired: false },
      ],
      challenger: null,
      seeds: ['b'],
    },
    {
      name: "puts a gauntlet's challenger first, whatever its rating",
      candidates: [
        { id: 'a', rating: 1200, retired: false },
        { id: 'b', rating: 1600, retired: false },
      ],
      challenger: 'a',
      seeds: ['a', 'b'],
    },
    {
      name: 'leaves a retired challenger out, so the start can refuse',
      candidates: [
        { id: 'a', rating: 1200, retired: true },
        { id: 'b', rating: 1600, retired: false },
      ],
      challenger: 'a',
      seeds: ['b'],
    },
  ])('$name', ({ candidates, challenger, seeds }) => {
    expect(seedEntrants(candidates, challenger)).toEqual(seeds);
  });
});

describe('maxSwissRounds', () => {
  it('is n − 1 for an even field and n for an odd one (a bye each round)', () => {
    expect([2, 3, 4, 5].map(maxSwissRounds)).toEqual([1, 3, 3, 5]);
  });
});

describe('planRound', () => {
  const roundRobin = { format: 'round-robin', gamesPerPairing: 2, openings: 'balanced' } as const;

  it("takes a round robin's round from the schedule, one opening drawn per pairing", () => {
    const plan = planRound(input({ tournament: roundRobin }));
    expect(plan).toMatchObject({ kind: 'round', number: 1, bye: null });
    if (plan.kind !== 'round') return;
    expect(plan.games).toHaveLength(2);
    expect(new Set(plan.games.map((g) => g.opening)).size).toBe(2);
    expect(plan.games.every((g) => g.played)).toBe(true);
  });

  it('gives the return game of a pairing the opening of its first game, colours swapped', () => {
    const first = planRound(input({ tournament: roundRobin }));
    if (first.kind !== 'round') throw new Error('no first round');
    const rounds: TournamentRound[] = [
      {
        number: 1,
        bye: null,
        games: first.games.map((g, i) => ({ ...g, match: `match_${i}` })),
      },
    ];
    const second = planRound(input({ tournament: roundRobin, number: 2, rounds }));
    if (second.kind !== 'round') throw new Error('no second round');
    second.games.forEach((game, i) => {
      expect(game.white).toBe(first.games[i]!.black);
      expect(game.opening).toBe(first.games[i]!.opening);
    });
  });

  it('draws no opening for standard openings', () => {
    const plan = planRound(input({ tournament: { ...roundRobin, openings: 'standard' } }));
    expect(plan.kind === 'round' && plan.games.map((g) => g.opening)).toEqual([null, null]);
  });

  it('lists a game of a withdrawn bot as not played, and drops a game between two', () => {
    const one = planRound(input({ tournament: roundRobin, withdrawn: new Set(['d']) }));
    if (one.kind !== 'round') throw new Error('no round');
    const withD = one.games.find((g) => g.white === 'd' || g.black === 'd')!;
    expect(withD).toMatchObject({ played: false, opening: null });
    expect(one.games.filter((g) => g.played)).toHaveLength(1);
    const both = planRound(input({ tournament: roundRobin, withdrawn: new Set(['a', 'd']) }));
    expect(both.kind === 'round' && both.games.length).toBe(1);
  });

  it('ends after the last round of the schedule', () => {
    expect(planRound(input({ tournament: roundRobin, number: 7 })).kind).toBe('end');
  });

  it("plays a gauntlet's challenger against one opponent a round, each pairing twice", () => {
    const gauntlet = {
      format: 'gauntlet',
      gamesPerPairing: 2,
      openings: 'standard',
      roundCount: null,
    } as const;
    expect(roundCountOf(gauntlet, ['champ', 'x', 'y'])).toBe(4);
    const plans = [1, 2, 3, 4].map((number) =>
      planRound(input({ tournament: gauntlet, seeds: ['champ', 'x', 'y'], number })),
    );
    const games = plans.map((plan) =>
      plan.kind === 'round' ? plan.games.map((g) => `${g.white}-${g.black}`) : [],
    );
    expect(games).toEqual([['champ-x'], ['x-champ'], ['champ-y'], ['y-champ']]);
  });

  const swiss = { format: 'swiss', gamesPerPairing: 2, openings: 'balanced' } as const;

  it('plays both games of a Swiss pairing in its round, colours swapped, from one opening', () => {
    const plan = planRound(input({ tournament: swiss }));
    if (plan.kind !== 'round') throw new Error('no round');
    expect(plan.games).toHaveLength(4);
    for (const [x, y] of [plan.games.slice(0, 2), plan.games.slice(2)] as const) {
      expect([y!.white, y!.black]).toEqual([x!.black, x!.white]);
      expect(y!.opening).toBe(x!.opening);
    }
  });

  it('pairs only the active bots in Swiss: no game and no bye for a withdrawn one', () => {
    const plan = planRound(
      input({
        tournament: { ...swiss, gamesPerPairing: 1 },
        number: 2,
        results: {
          games: [
            { white: 'a', black: 'c', result: 'white' },
            { white: 'd', black: 'b', result: 'draw' },
          ],
        },
        withdrawn: new Set(['a']),
      }),
    );
    if (plan.kind !== 'round') throw new Error('no round');
    expect(plan.bye).not.toBe('a');
    expect(plan.bye).not.toBeNull();
    expect(plan.games.flatMap((g) => [g.white, g.black])).not.toContain('a');
  });

  it('ends a Swiss tournament left with fewer than two active bots', () => {
    expect(planRound(input({ tournament: swiss, withdrawn: new Set(['a', 'b', 'c']) })).kind).toBe('end');
  });
});

describe('scoredResult', () => {
  it.each([
    { name: 'a win', m: match({ winner: 'black', discs, reason: 'completed' }), score: 'black' },
    { name: 'a draw', m: match({ winner: null, discs, reason: 'completed' }), score: 'draw' },
    {
      name: 'a fault, lost by the side at fault',
      m: match({
        winner: 'white',
        discs,
        reason: 'timeout',
        fault: { player: 'black', reason: 'timeout', message: 'slow' },
      }),
      score: 'white',
    },
    {
      name: 'a no-show recorded without a winner (before no-shows counted as faults), lost by the side at fault',
      m: match({
        winner: null,
        discs,
        reason: 'no-show',
        fault: { player: 'white', reason: 'bot-error', message: 'refused' },
      }),
      score: 'black',
    },
    {
      name: 'an aborted match: not scored',
      m: match({ winner: null, discs, reason: 'aborted' }, 'aborted'),
      score: null,
    },
    { name: 'a running match: not yet', m: match(null, 'running'), score: null },
  ])('$name', ({ m, score }) => {
    expect(scoredResult(m)).toBe(score);
  });
});

describe('roundEnded and resultsOf', () => {
  const round: TournamentRound = {
    number: 1,
    bye: 'e',
    games: [
      { match: 'match_1', white: 'w', black: 'b', opening: null },
      { match: null, white: 'x', black: 'y', opening: null },
    ],
  };

  it('count a round ended once its every match is finished or aborted', () => {
    expect(roundEnded(round, new Map([['match_1', match(null, 'running')]]))).toBe(false);
    expect(
      roundEnded(round, new Map([['match_1', match({ winner: null, discs, reason: 'aborted' }, 'aborted')]])),
    ).toBe(true);
  });

  it('score the games with a result, and byes in Swiss only', () => {
    const matches = new Map([['match_1', match({ winner: 'white', discs, reason: 'completed' })]]);
    expect(resultsOf('swiss', [round], matches)).toEqual({
      games: [{ white: 'w', black: 'b', result: 'white' }],
      byes: ['e'],
    });
    expect(resultsOf('round-robin', [round], matches)).toEqual({
      games: [{ white: 'w', black: 'b', result: 'white' }],
    });
  });

  it('mark a game a fault ended as a forfeit, which the strengths leave out', () => {
    const fault = { player: 'black', reason: 'timeout', message: 'slow' } as const;
    const matches = new Map([['match_1', match({ winner: 'white', discs, reason: 'timeout', fault })]]);
    expect(resultsOf('round-robin', [round], matches)).toEqual({
      games: [{ white: 'w', black: 'b', result: 'white', forfeit: true }],
    });
  });
});
