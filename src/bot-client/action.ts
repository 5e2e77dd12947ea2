import { z } from 'zod';
import type { BotAction } from '../contract/index.ts';
import { type Exact, tied } from '../contract/tied.ts';
import { clippedFaultMessage } from '../model/faults.ts';
import { DIRECTIONS } from '../reversi/index.ts';

/**
 * A bot's answer: a square a1..h8 and, under single-direction capture, a direction, or in the solo
 * game the colour of the disc placed. Nothing else.
 */
export const botActionSchema = z.strictObject({
  action: z.string().regex(/^[a-h][1-8]$/, 'must be a square a1..h8'),
  direction: z.enum(DIRECTIONS).optional(),
  colour: z.enum(['black', 'white']).optional(),
});
tied<Exact<z.output<typeof botActionSchema>, BotAction>>();

/**
 * Parses a bot's response body. Returns the action, or a one-line reason naming what is wrong
 * (not JSON, or the first schema issue).
 *
 * @example
 * parseBotAction('{"action":"e3"}'); // { ok: true, action: { action: 'e3' } }
 * parseBotAction('e3'); // { ok: false, message: 'the response is not JSON' }
 */
export function parseBotAction(
  text: string,
): { ok: true; action: BotAction } | { ok: false; message: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the response is not JSON' };
  }
  const parsed = botActionSchema.safeParse(json);
  if (parsed.success) return { ok: true, action: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'body';
  return {
    ok: false,
    message: clippedFaultMessage(`the response is not a BotAction: ${where}: ${issue?.message ?? 'invalid'}`),
  };
}
