import type { LookupAddress, LookupOptions } from 'node:dns';
import { Resolver } from 'node:dns/promises';
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

/**
 * A bot's host name gave no public address: no address at all, only private ones, or no answer in
 * time. Told the same way whichever it was, and without the addresses, so that a bot's owner
 * cannot map the names the arena's resolver knows (a compose file's `redis`, say) by registering them.
 */
export class NoPublicAddressError extends Error {
  override readonly name = 'NoPublicAddressError';
  readonly code = 'EARENA_NO_PUBLIC_ADDRESS';
  constructor(hostname: string) {
    super(`the bot's host name ${hostname} does not resolve to a public address`);
  }
}

/** Errors raised while connecting, before any byte of the request was written (safe to retry). */
const connectPhaseErrors = new WeakSet<object>();

/** True when `error` came from opening the connection, so the request itself was never sent. */
export function isConnectPhaseError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && connectPhaseErrors.has(error);
}

function refused(host: string): AddressRefusedError {
  return new AddressRefusedError(
    `the bot address ${host} is not public: calls to loopback, private, link-local and reserved addresses are not allowed`,
  );
}

/**
 * A host name's IPv4 and IPv6 addresses, asked of DNS servers by c-ares over its own sockets. Not
 * the OS resolver (`dns.lookup`, getaddrinfo): it holds one of libuv's four pool threads a lookup,
 * and four lookups of names whose DNS server never answers held all four for 10–20 s, so every
 * other bot's new connection waited behind them. No /etc/hosts: a bot's name is public. An IP
 * literal is its own address.
 */
async function resolveAddresses(resolver: Resolver, hostname: string): Promise<LookupAddress[]> {
  const family = isIP(hostname);
  if (family !== 0) return [{ address: hostname, family }];
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
  return [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
}

/**
 * The resolver for bots' host names: `servers` (IPs, with a port if not 53), else the system's.
 * A query is given 1.5 s, twice; a call's own deadline ends the wait on it sooner.
 */
export function botResolver(servers: readonly string[] = []): Resolver {
  const resolver = new Resolver({ timeout: 1500, tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  return resolver;
}

/**
 * A lookup for `net.connect` that resolves with `resolver` and keeps only public addresses: a name
 * that resolves to both a public and a private address connects to the public one, and one with no
 * public address fails with `NoPublicAddressError`. Handles `all: true` (happy eyeballs) and not.
 */
export function publicOnlyLookup(resolver: Resolver): LookupFunction {
  return ((
    hostname: string,
    options: LookupOptions,
    callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    void resolveAddresses(resolver, hostname).then((addresses) => {
      const allowed = addresses.filter(
        (entry) => isPublicAddress(entry.address) && (!options.family || entry.family === options.family),
      );
      const first = allowed[0];
      if (first === undefined) return callback(new NoPublicAddressError(hostname), []);
      if (options.all) return callback(null, allowed);
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

/**
 * Wraps an undici connector with the address policy, checked where it cannot be dodged:
 * - an IP-literal host is refused before connecting;
 * - the connected socket's `remoteAddress` is checked before the socket is handed to undici (so a
 *   DNS answer that changed between checks, or any other route to a private peer, is still caught),
 *   and the socket is destroyed unused.
 * With `allowPrivateAddresses` only the connect-phase bookkeeping (for the one retry) remains.
 *
 * @example
 * const connect = guardConnector(buildConnector({ lookup: publicOnlyLookup(botResolver()) }), { allowPrivateAddresses: false });
 * new Agent({ connect });
 */
export function guardConnector(
  base: buildConnector.connector,
  policy: { readonly allowPrivateAddresses: boolean },
): buildConnector.connector {
  return (options, callback) => {
    const literal = isIP(options.hostname) === 0 ? null : options.hostname;
    if (!policy.allowPrivateAddresses && literal !== null && !isPublicAddress(literal)) {
      const error = refused(literal);
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
        const refusal = refused(options.hostname);
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
 * The connector a `BotClient`'s agent uses: public DNS answers only (asked with `resolver`) plus the
 * socket check, or the OS resolver unchecked when private addresses are allowed (development:
 * /etc/hosts' `localhost` and the like); TLS as `BOT_TLS` allows.
 */
export function botConnector(
  policy: { readonly allowPrivateAddresses: boolean },
  resolver: Resolver,
): buildConnector.connector {
  const base = buildConnector({
    ...BOT_TLS,
    ...(policy.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup(resolver) }),
  });
  return guardConnector(base, policy);
}
