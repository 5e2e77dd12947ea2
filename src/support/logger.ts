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
  const stream = pino.destination({ dest: destination, sync: false });
  const logger = pino(loggerOptions(config, false), stream);
  destinations.set(logger, stream);
  return logger;
}

/** The asynchronous destination of each logger createLogger built, for exitOnceLogged. */
const destinations = new WeakMap<Logger, ReturnType<typeof pino.destination>>();

const EXIT_FLUSH_LIMIT_MS = 5000;

/**
 * Ends the process with `code` once the lines logged so far are written. Exiting at once would let
 * pino's exit flush write later lines before one whose asynchronous write is still in flight
 * ("bye" before "shutting down"), or cut a long line short when stdout's reader is slow. Should
 * stdout not drain within `EXIT_FLUSH_LIMIT_MS`, it exits regardless.
 */
export function exitOnceLogged(logger: Logger, code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), EXIT_FLUSH_LIMIT_MS).unref();
  const stream = destinations.get(logger);
  if (stream === undefined) {
    logger.flush(() => process.exit(code)); // pino-pretty's transport thread
    return;
  }
  // sonic-boom's flush(cb) does not wait for a write in flight (minLength 0); end() does, and
  // leaves stdout and stderr open.
  stream.once('close', () => process.exit(code));
  stream.end();
}
