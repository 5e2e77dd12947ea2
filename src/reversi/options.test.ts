import { describe, expect, it } from 'vitest';
import { RulesError } from './errors.ts';
import { DEFAULT_RULES, opponent, type RulesOptions, rulesOptions } from './options.ts';

describe('rules options', () => {
  it('default to white first, all lines flipping, disc scoring', () => {
    expect(DEFAULT_RULES).toEqual({ firstPlayer: 'white', captureRule: 'all', scoring: 'discs' });
    expect(Object.isFrozen(DEFAULT_RULES)).toBe(true);
  });

  it('fill unset fields from the defaults and come back frozen', () => {
    const rules = rulesOptions({ firstPlayer: 'black' });
    expect(rules).toEqual({ firstPlayer: 'black', captureRule: 'all', scoring: 'discs' });
    expect(Object.isFrozen(rules)).toBe(true);
    expect(rulesOptions()).toEqual(DEFAULT_RULES);
  });

  it('drop keys they do not know', () => {
    expect(rulesOptions({ extra: 1 } as Partial<RulesOptions>)).toEqual(DEFAULT_RULES);
  });

  it.each([{ firstPlayer: 'red' }, { captureRule: 'some' }, { scoring: 'points' }])(
    'reject %j with reversi/invalid-rules',
    (partial) => {
      const attempt = () => rulesOptions(partial as Partial<RulesOptions>);
      expect(attempt).toThrow(RulesError);
      expect(attempt).toThrow(expect.objectContaining({ code: 'reversi/invalid-rules' }));
    },
  );

  it('name the opponent of each player', () => {
    expect(opponent('black')).toBe('white');
    expect(opponent('white')).toBe('black');
  });
});
