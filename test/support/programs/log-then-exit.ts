/** Logs a line longer than a pipe holds, then a short one, then exits (test/http/logger-exit.test.ts). */
import { createLogger, exitOnceLogged } from '../../../src/support/logger.ts';

const logger = createLogger({ logLevel: 'info' });
logger.info({ filler: 'x'.repeat(1 << 20) }, 'first');
logger.info('last');
exitOnceLogged(logger, 0);
