import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { DEFAULT_CIPHERS } from 'node:tls';
import { buildConnector } from 'undici';
import { isPublicAddress } from '../net/address-policy.ts';

/**
 * A bot URL led to an address the arena must not call (loopback, private, link-local, metadata…).
 * Raised before any byte of the request is sent.
 */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'EARENA_ADDRESS_REFUSED';
}

/** Errors raised while connecting, before any byte of the request was written (safe to retry). */
const connectPhaseErrors = new WeakSet<object>();

/** True when `error` came from opening the connection, so the request itself was never sent. */
export function isConnectPhaseError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && connectPhaseErrors.has(error);
}

function refused(host: string, addresses: readonly string[]): AddressRefusedError {
  const where =
    addresses.length === 0 || (addresses.length === 1 && addresses[0] === host)
      ? ''
      : ` (${addresses.join(', ')})`;
  return new AddressRefusedError(
    `the bot address ${host}${where} is not public: calls to loopback, private, link-local and reserved addresses are not allowed`,
  );
}

/**
 * A `dns.lookup` that drops every non-public address from the answer, so a name that resolves to
 * both a public and a private address connects to the public one, and a name that resolves only to
 * private ones fails with `AddressRefusedError`. Handles `all: true` (Node's happy eyeballs) and not.
 */
export const publicOnlyLookup = ((
  hostname: string,
  options: LookupOptions,
  callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const allowed = addresses.filter((entry) => isPublicAddress(entry.address));
    const first = allowed[0];
    if (first === undefined) {
      return callback(
        refused(
          hostname,
          addresses.map((entry) => entry.address),
        ),
        [],
      );
    }
    if (options.all) return callback(null, allowed);
    callback(null, first.address, first.family);
  });
}) as LookupFunction;

/**
 * Wraps an undici connector with the address policy, checked where it cannot be dodged:
 * - an IP-literal host is refused before connecting;
 * - the connected socket's `remoteAddress` is checked before the socket is handed to undici (so a
 *   DNS answer that changed between checks, or any other route to a private peer, is still caught),
 *   and the socket is destroyed unused.
 * With `allowPrivateAddresses` only the connect-phase bookkeeping (for the one retry) remains.
 *
 * @example
 * const connect = guardConnector(buildConnector({ lookup: publicOnlyLookup }), { allowPrivateAddresses: false });
 * new Agent({ connect });
 */
export function guardConnector(
  base: buildConnector.connector,
  policy: { readonly allowPrivateAddresses: boolean },
): buildConnector.connector {
  return (options, callback) => {
    const literal = isIP(options.hostname) === 0 ? null : options.hostname;
    if (!policy.allowPrivateAddresses && literal !== null && !isPublicAddress(literal)) {
      const error = refused(literal, []);
      connectPhaseErrors.add(error);
      callback(error, null);
      return;
    }
    base(options, (error, socket) => {
      if (error !== null) {
        connectPhaseErrors.add(error);
        callback(error, null);
        return;
      }
      const peer = socket.remoteAddress;
      if (!policy.allowPrivateAddresses && (peer === undefined || !isPublicAddress(peer))) {
        socket.destroy();
        const refusal = refused(options.hostname, [peer ?? 'unknown']);
        connectPhaseErrors.add(refusal);
        callback(refusal, null);
        return;
      }
      callback(null, socket);
    });
  };
}

/**
 * What the arena's side of a TLS handshake with a bot may compute: elliptic-curve key exchange only.
 * A handshake runs on the thread that keeps every match's clock, and finite-field Diffie-Hellman
 * lets the server choose the size: a bot offering only DHE with 10,000-bit parameters (TLS 1.2), or
 * an ffdhe8192 group (TLS 1.3), made each connection stall that thread for about a second, long
 * enough for other matches' bots to time out. Every TLS 1.3 cipher and ECDHE suite stays.
 */
export const BOT_TLS = {
  ciphers: `${DEFAULT_CIPHERS}:!kDHE`,
  ecdhCurve: 'X25519:P-256:P-384',
} as const;

/**
 * The connector a `BotClient`'s agent uses: filtered DNS plus the socket check, or plain when private
 * addresses are allowed; TLS as `BOT_TLS` allows.
 */
export function botConnector(policy: { readonly allowPrivateAddresses: boolean }): buildConnector.connector {
  const base = buildConnector({
    ...BOT_TLS,
    ...(policy.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup }),
  });
  return guardConnector(base, policy);
}
