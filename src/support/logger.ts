import { type Level, type Logger, type LoggerOptions, pino } from 'pino';

/** The one setting the logger reads (the configuration's `LOG_LEVEL`). */
export interface LoggerSettings {
  readonly logLevel: Level | 'silent';
}

/**
 * The options of the process logger: JSON lines without pid and hostname (the platform adds its
 * own), and, when `pretty` (stdout is a terminal), one readable line per entry through pino-pretty.
 */
export function loggerOptions(config: LoggerSettings, pretty: boolean): LoggerOptions {
  return {
    level: config.logLevel,
    base: null,
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: {
              translateTime: 'SYS:HH:MM:ss',
              ignore: 'method,route,status,ms,principal',
              singleLine: true,
            },
          },
        }
      : {}),
  };
}

/**
 * The logger of `npm start`, `npm run worker` and `npm run demo`, writing to `destination` (a file
 * descriptor or path; stdout by default). JSON lines are written asynchronously: lines logged while
 * a write is pending go out together in the next one, rather than one write system call per request
 * line (the request log's cost under load). pino flushes what is left synchronously when the
 * process exits.
 *
 * @example
 * const logger = createLogger({ logLevel: 'info' });
 */
export function createLogger(config: LoggerSettings, destination: number | string = 1): Logger {
  if (destination === 1 && process.stdout.isTTY === true) return pino(loggerOptions(config, true));
  return pino(loggerOptions(config, false), pino.destination({ dest: destination, sync: false }));
}
