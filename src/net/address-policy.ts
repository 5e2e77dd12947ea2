import { BlockList, isIP } from 'node:net';

/**
 * Which peer addresses the arena may call. Bots are untrusted URLs: without this a bot URL could
 * point the arena at its own Redis, a cloud metadata service or the operator's private network.
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64 can reach any IPv4 address
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:10.0.0.1` and `::ffff:a00:1` are IPv4 addresses in IPv6 clothing. */
function unmapIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/**
 * True when `address` (an IP literal) is a public unicast address the arena may connect to.
 * Loopback, private, link-local, metadata, documentation, multicast and reserved ranges are refused,
 * IPv4-mapped IPv6 forms included. Anything that is not an IP literal is refused.
 *
 * @example
 * isPublicAddress('93.184.216.34') // true
 * isPublicAddress('::ffff:127.0.0.1') // false
 */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !forbidden.check(bare, 'ipv4');
  if (family !== 6) return false;
  const mapped = unmapIpv4(bare);
  if (mapped !== null) return isIP(mapped) === 4 && !forbidden.check(mapped, 'ipv4');
  return !forbidden.check(bare, 'ipv6');
}

/** The hostname of a URL when it is an IP literal (brackets stripped), else null. */
export function ipLiteralHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : host;
}
