/**
 * A small reader of one GGF game (the Generic Game Format of the GGS Othello server,
 * https://skatgame.net/mburo/ggsa/ggf), written apart from the formatter in src/protocol/ggf.ts
 * so the tests read an export back the way an Othello program would: property by property, with
 * `\` escapes, moves as `square/eval/time`, passes as `PA` (or `pass`).
 */

export type GgfColor = 'black' | 'white';

export interface GgfMove {
  readonly color: GgfColor;
  /** Lower case (`d3`), or `pass`. */
  readonly square: string;
  readonly evaluation?: number;
  readonly seconds?: number;
}

export interface GgfGame {
  /** Every property's values, unescaped, in order (B and W included). */
  readonly properties: ReadonlyMap<string, readonly string[]>;
  readonly black: string | undefined;
  readonly white: string | undefined;
  /** The start position: 64 cells a1, b1, …, h8 of `*` black, `O` white, `-` empty. */
  readonly board: string;
  readonly toMove: GgfColor;
  readonly moves: readonly GgfMove[];
  /** `RE` from black's view, with its flag (`r`, `t`, `s`); null without one. */
  readonly result: { readonly score: number; readonly flag: string | null } | null;
}

/** Reads one `(;` … `;)` game; throws on anything else. */
export function parseGgf(text: string): GgfGame {
  const properties = new Map<string, string[]>();
  const moves: GgfMove[] = [];
  let at = text.indexOf('(;');
  if (at < 0) throw new Error('GGF: no "(;" start');
  at += 2;
  const skipSpace = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  for (;;) {
    skipSpace();
    if (text.startsWith(';)', at)) break;
    const name = /^[A-Z]+/.exec(text.slice(at))?.[0];
    if (name === undefined) throw new Error(`GGF: a property name expected at ${at}`);
    at += name.length;
    if (text[at] !== '[') throw new Error(`GGF: "[" expected after ${name}`);
    at++;
    let value = '';
    for (;;) {
      const char = text[at++];
      if (char === undefined) throw new Error(`GGF: ${name}'s value has no "]"`);
      if (char === ']') break;
      if (char === '\\') {
        const escaped = text[at++];
        if (escaped === undefined) throw new Error(`GGF: ${name}'s value ends in "\\"`);
        value += escaped;
      } else value += char;
    }
    properties.set(name, [...(properties.get(name) ?? []), value]);
    if (name === 'B' || name === 'W') moves.push(parseMove(name === 'B' ? 'black' : 'white', value));
  }
  const one = (name: string) => properties.get(name)?.[0];
  const { board, toMove } = parseBoard(one('BO') ?? '');
  return {
    properties,
    black: one('PB'),
    white: one('PW'),
    board,
    toMove,
    moves,
    result: parseResult(one('RE')),
  };
}

function parseMove(color: GgfColor, value: string): GgfMove {
  const [square = '', evaluation = '', seconds = ''] = value.split('/');
  const lower = square.toLowerCase();
  const pass = lower === 'pa' || lower === 'pass';
  if (!pass && !/^[a-h][1-8]$/.test(lower)) throw new Error(`GGF: not a move: ${value}`);
  return {
    color,
    square: pass ? 'pass' : lower,
    ...(evaluation === '' ? {} : { evaluation: Number(evaluation) }),
    ...(seconds === '' ? {} : { seconds: Number(seconds) }),
  };
}

function parseBoard(value: string): { board: string; toMove: GgfColor } {
  const [size, ...rest] = value.trim().split(/\s+/);
  if (size !== '8') throw new Error(`GGF: BO of size ${size}, not 8`);
  const cells = rest.join('');
  const board = cells.slice(0, 64);
  const side = cells.slice(64);
  if (!/^[*O-]{64}$/.test(board) || (side !== '*' && side !== 'O')) {
    throw new Error(`GGF: not an 8x8 board and a side to move: ${value}`);
  }
  return { board, toMove: side === '*' ? 'black' : 'white' };
}

function parseResult(value: string | undefined): GgfGame['result'] {
  if (value === undefined) return null;
  const [score = '', flag] = value.split(':');
  if (!/^[+-]?\d+(\.\d+)?$/.test(score)) throw new Error(`GGF: not a result: ${value}`);
  return { score: Number(score), flag: flag ?? null };
}
