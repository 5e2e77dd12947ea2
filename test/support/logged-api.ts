import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Config } from '../../src/config.ts';
import { loggerOptions } from '../../src/support/logger.ts';
import { startApi } from '../../src/wiring/api-process.ts';

/** A pino line's fields: the level and message typed, a request line's route too, the rest as they come. */
export interface LogEntry {
  readonly level: number;
  readonly msg: string;
  readonly route?: string;
  readonly [field: string]: unknown;
}

/** The JSON lines an app logged, as written (one per entry) and parsed. */
export class LogLines {
  readonly lines: string[] = [];

  entries(): LogEntry[] {
    return this.lines.map((line) => JSON.parse(line));
  }

  /** Forgets what was logged so far. */
  clear(): void {
    this.lines.length = 0;
  }
}

/**
 * The app `npm start` runs, on `config` (a harness'), logging at info as it does off a terminal,
 * its lines kept in `log`. Close it with `api.close()`.
 */
export async function startLoggedApi(config: Config) {
  const log = new LogLines();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      log.lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const api = await startApi(
    { ...config, logLevel: 'info' },
    pino(loggerOptions({ logLevel: 'info' }, false), sink),
    () => false,
  );
  return { api, log };
}
