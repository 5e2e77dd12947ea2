import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Which peer addresses the arena may call. Bots are untrusted URLs: without this a bot URL could
 * point the arena at its own Redis, a cloud metadata service or the operator's private network.
 *
 * The rule is "global unicast only", with ipaddr.js (the version express already ships) naming the
 * special ranges: an address passes only when `range()` says `unicast`. That refuses loopback,
 * private, link-local, carrier-grade NAT, multicast, reserved and documentation ranges, and every
 * IPv6 form that carries an IPv4 address inside it (IPv4-mapped ::ffff:0:0/96, "IPv4-translated"
 * ::ffff:0:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32), whatever IPv4 address it
 * embeds: a dual-stack socket, NAT64 gateway or relay near the arena delivers to that IPv4 address,
 * which may be private, and a real bot has a plain IPv4 or IPv6 address to give instead.
 *
 * ipaddr.js calls a few non-global ranges `unicast`; the lists below are only those gaps.
 */

/** Global unicast IPv6 is 2000::/3 (RFC 4291, IANA); ipaddr.js calls anything unnamed `unicast`. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
// Outside 2000::/3, and so refused by it though ipaddr.js says `unicast`: IPv4-compatible ::/96
// (::7f00:1 is 127.0.0.1), NAT64 local-use 64:ff9b:1::/48 (RFC 8215), discard-only 100::/64,
// site-local fec0::/10 (deprecated by RFC 3879, never global, still configured on old networks).

/** Non-global ranges that ipaddr.js 1.9 does not know, inside the space it calls `unicast`. */
const NOT_GLOBAL_V4 = [
  ipaddr.IPv4.parseCIDR('198.18.0.0/15'), // benchmarking (RFC 2544); the old list refused it too
];
const NOT_GLOBAL_V6 = [
  ipaddr.IPv6.parseCIDR('2001:2::/48'), // benchmarking (RFC 5180)
  ipaddr.IPv6.parseCIDR('3fff::/20'), // documentation (RFC 9637), like 2001:db8::/32
];

/**
 * ipaddr.js 1.9 cannot parse a dotted-quad tail after `::` (`::127.0.0.1`, `64:ff9b::10.0.0.1`), a
 * form `inet_ntop` (and so a socket's `remoteAddress`) prints for ::/96. Rewrites it as two hex
 * groups; the caller has already checked the address with `isIP`.
 */
function hexTail(address: string): string {
  return address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) => {
    const high = (Number(a) << 8) | Number(b);
    const low = (Number(c) << 8) | Number(d);
    return `${high.toString(16)}:${low.toString(16)}`;
  });
}

function isGlobalV4(address: string): boolean {
  const parsed = ipaddr.IPv4.parse(address);
  return parsed.range() === 'unicast' && !NOT_GLOBAL_V4.some((range) => parsed.match(range));
}

function isGlobalV6(address: string): boolean {
  const parsed = ipaddr.IPv6.parse(hexTail(address));
  return (
    parsed.range() === 'unicast' &&
    parsed.match(GLOBAL_UNICAST_V6) &&
    !NOT_GLOBAL_V6.some((range) => parsed.match(range))
  );
}

/**
 * True when `address` (an IP literal, brackets and zone allowed) is a global unicast address the
 * arena may connect to. Everything else is refused: loopback, private, link-local, metadata,
 * documentation, benchmarking, multicast and reserved ranges, and every IPv6 form embedding an IPv4
 * address (IPv4-mapped, IPv4-compatible, IPv4-translated, 6to4, Teredo, NAT64), even a public one.
 * Anything that is not an IP literal, or that cannot be parsed, is refused.
 *
 * @example
 * isPublicAddress('93.184.216.34') // true
 * isPublicAddress('::ffff:127.0.0.1') // false
 * isPublicAddress('2002:7f00:1::') // false (6to4 of 127.0.0.1)
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // `isIP` first: ipaddr.js also reads shorthand IPv4 (`127.1`, `0x7f.1`) that no socket API takes.
  const family = isIP(bare);
  try {
    if (family === 4) return isGlobalV4(bare);
    if (family === 6) return isGlobalV6(bare);
  } catch {
    // A form Node accepts and ipaddr.js does not: refuse rather than guess.
  }
  return false;
}

/** The hostname of a URL when it is an IP literal (brackets stripped), else null. */
export function ipLiteralHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : host;
}
