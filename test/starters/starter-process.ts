import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { expect } from 'vitest';
import type { components } from '../../src/contract/index.ts';
import { initialPosition, isGameOver, play, rulesOptions, type Square } from '../../src/reversi/index.ts';
import { replaySolo } from '../solo/solo-truth.ts';
import { bearer } from '../support/api.ts';
import { killedAfterTest } from '../support/children.ts';
import type { Harness } from '../support/harness.ts';

/** What the starter bots' tests share: running a starter as a person does, and checking its games. */

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

type Match = components['schemas']['Match'];

export interface StarterBot {
  readonly child: ChildProcess;
  /** Resolves with the first line of stdout matching `pattern`; rejects if the process ends first. */
  line(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code once the process has exited and its output is read. */
  closed(): Promise<number | null>;
  /** Its stdout and stderr so far, for failure messages. */
  output(): string;
}

/**
 * Starts `command <args>` (a starter bot: `script` names it in failures) from the repository's
 * root, killed when the test ends. A proxy in the environment must not take the loopback calls.
 */
export function runStarterProcess(
  command: string,
  args: string[],
  script: string,
  env: Record<string, string> = {},
): StarterBot {
  const child = killedAfterTest(
    spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, NO_PROXY: '127.0.0.1,localhost', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  let stdout = '';
  let stderr = '';
  // 'close', not 'exit': by then every byte the process wrote has been read.
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  let ended = false;
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const wake of waiters) wake();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    changed();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  closed.then(() => {
    ended = true;
    changed();
  });
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`;
  return {
    child,
    output,
    closed: () => closed,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = stdout.split('\n').find((line) => pattern.test(line));
          if (found !== undefined) resolve(found);
          else if (ended)
            reject(
              new Error(
                `${script} exited (${child.exitCode ?? child.signalCode}) before ${pattern}\n${output()}`,
              ),
            );
          else return;
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
  };
}

/**
 * Replays a finished match on the rules engine: every move legal in turn, the game over at the end;
 * answers how many discs each side placed.
 */
export function replayed(match: Match): { black: number; white: number } {
  const rules = rulesOptions({
    firstPlayer: match.rules.firstPlayer,
    captureRule: match.rules.captureRule,
    scoring: match.rules.scoring as 'discs' | 'empties-to-winner',
  });
  let position = initialPosition(rules);
  const placed = { black: 0, white: 0 };
  for (const move of match.moves) {
    expect(move.player, `ply ${move.ply}`).toBe(position.toMove);
    const square = move.square as Square | 'pass';
    const next = play(position, move.direction ? { square, direction: move.direction } : { square }, rules);
    if (!next.ok) throw new Error(`ply ${move.ply}, ${move.player} ${square}: ${next.error.message}`);
    if (move.square !== 'pass') placed[move.player]++;
    position = next.position;
  }
  expect(isGameOver(position)).toBe(true);
  return placed;
}

/**
 * Starts a solo game as a bot does, `POST /v1/solo` with its token, on the time limits the starters'
 * tests give (`rules`); answers the queued match's id.
 */
export async function startSolo(
  h: Harness,
  token: string,
  body: { layout: number; scoring?: 'tokens' | 'points' },
  rules: { timeLimitMs: number; overageMs: number },
): Promise<string> {
  const res = await request(h.app)
    .post('/v1/solo')
    .set(bearer(token))
    .send({ ...body, ...rules });
  if (res.status !== 202)
    throw new Error(`POST /v1/solo answered ${res.status}: ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ game: 'solo', status: 'queued' });
  return res.body.id;
}

/**
 * Checks a solo game the starter played to its end (`result.reason` is checked by the test, with the
 * starter's output): every move names its disc's colour, every move replays legally on the engine
 * apart from the arena, the game is over at the end, and the recorded score is the replay's.
 */
export function expectSoloPlayed(match: Match): void {
  expect(match.game).toBe('solo');
  expect(match.status).toBe('finished');
  expect(match.moves.length).toBeGreaterThan(0);
  for (const move of match.moves) expect(['black', 'white'], `ply ${move.ply}`).toContain(move.colour);
  const replayed = replaySolo(match);
  expect(replayed.over).toBe(true);
  expect(match.result?.discs).toEqual({ black: replayed.score, white: 0 });
}
