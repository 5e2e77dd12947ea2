import { type Logger, type LoggerOptions, pino } from 'pino';
import type { Config } from './config.ts';

/**
 * The options of the process logger: JSON lines without pid and hostname (the platform adds its
 * own), and, when `pretty` (stdout is a terminal), one readable line per entry through pino-pretty.
 */
export function loggerOptions(config: Pick<Config, 'logLevel'>, pretty: boolean): LoggerOptions {
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

/** The logger of `npm start`, `npm run worker` and `npm run demo`. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino(loggerOptions(config, process.stdout.isTTY === true));
}
