/**
 * Calling push bots safely: signed requests, hard time limits, bounded bodies, no redirects, and no
 * calls to private addresses. A bot's misbehaviour is an outcome (`BotCallOutcome`), not an exception.
 */

export { botActionSchema, parseBotAction } from './action.ts';
export { BotClient } from './client.ts';
export {
  AddressRefusedError,
  botResolver,
  guardConnector,
  NoPublicAddressError,
  publicOnlyLookup,
} from './connector.ts';
export { signedHeaders, webhookId } from './signing.ts';
export {
  type BotCallOutcome,
  type BotCallRequest,
  type BotClientOptions,
  type BotFault,
  type BotFaultReason,
  EXCERPT_BYTES,
  MAX_RESPONSE_BYTES,
} from './types.ts';
