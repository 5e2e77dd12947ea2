import { Webhook } from 'standardwebhooks';

/**
 * A request's headers as Node (`req.headers`), fetch (`Headers`) or a plain object gives them (any
 * case), or any object with the three signature headers.
 */
export type HeadersLike =
  | Headers
  | { readonly [name: string]: string | readonly string[] | undefined }
  | {
      readonly 'webhook-id'?: string;
      readonly 'webhook-timestamp'?: string;
      readonly 'webhook-signature'?: string;
    };

/** Whether a push call's signature verified, and if not, why (for your logs, not for the caller). */
export type SignatureCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Checks one call's signature: `createPushVerifier(secret)` returns one. */
export type PushVerifier = (headers: HeadersLike, body: string | Uint8Array) => SignatureCheck;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** The three Standard Webhooks headers, lower-cased, from any shape of headers. */
function signatureHeaders(headers: HeadersLike): Record<string, string> {
  const found: Record<string, string> = {};
  const get =
    typeof (headers as Headers).get === 'function'
      ? (name: string) => (headers as Headers).get(name) ?? undefined
      : (name: string) => {
          const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
          const value = entry?.[1] as string | readonly string[] | undefined;
          return typeof value === 'string' ? value : value?.join(' ');
        };
  for (const name of SIGNATURE_HEADERS) {
    const value = get(name);
    if (value !== undefined) found[name] = value;
  }
  return found;
}

/**
 * A checker for the arena's calls to a push bot, signed with the bot's `webhookSecret` under the
 * Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`; HMAC-SHA256 over
 * `id.timestamp.body`). Verified by the `standardwebhooks` package: constant-time comparison, and a
 * timestamp more than five minutes from this machine's clock is refused (a replay). The body must be
 * the request's bytes as received, before any JSON parsing. Throws at once when `secret` is not a
 * `whsec_…` secret, so a wrong setting fails at start-up rather than as a 401 on every call.
 *
 * @example
 * const verify = createPushVerifier(process.env.WEBHOOK_SECRET!);
 * const check = verify(req.headers, body);
 * if (!check.ok) return reply(401, { error: check.reason });
 */
export function createPushVerifier(secret: string): PushVerifier {
  if (!secret.startsWith('whsec_')) throw new Error('a webhook secret starts with whsec_');
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (error) {
    throw new Error(`not a webhook secret: ${error instanceof Error ? error.message : String(error)}`);
  }
  const decoder = new TextDecoder();
  return (headers, body) => {
    const signed = signatureHeaders(headers);
    if (Object.keys(signed).length < SIGNATURE_HEADERS.length) {
      return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
    }
    try {
      const text = typeof body === 'string' ? body : decoder.decode(body);
      webhook.verify(text, signed, { jsonParse: false });
      return { ok: true };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return { ok: false, reason: `the signature does not verify (${why})` };
    }
  };
}

/**
 * Checks the Standard Webhooks signature of one call the arena made to a push bot; see
 * `createPushVerifier`, which to prefer when checking many calls with one secret.
 *
 * @example
 * if (!verifyPushSignature(secret, req.headers, body).ok) res.writeHead(401).end();
 */
export function verifyPushSignature(
  secret: string,
  headers: HeadersLike,
  body: string | Uint8Array,
): SignatureCheck {
  return createPushVerifier(secret)(headers, body);
}
