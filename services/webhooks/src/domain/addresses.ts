import { BlockList, isIP } from 'node:net';

/**
 * Addresses a webhook may never reach without WEBHOOKS_ALLOW_PRIVATE=1: this host, private
 * networks, link-local (the cloud metadata services at 169.254.169.254 and fd00:ec2::254 among
 * them), shared carrier NAT, multicast and reserved ranges. IPv4 inside IPv6 (mapped, well-known
 * NAT64) is judged as the IPv4 address it carries; the deprecated IPv4-compatible range (::/96) and
 * local-use NAT64 (64:ff9b:1::/48, translated by a network's own gateway) are refused outright.
 */
const refused = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  refused.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
] as const)
  refused.addSubnet(net, bits, 'ipv6');

/** IPv6 ranges whose last 32 bits are an IPv4 address the packet goes to: mapped, and well-known NAT64. */
const carriesIpv4 = new BlockList();
carriesIpv4.addSubnet('::ffff:0:0', 96, 'ipv6');
carriesIpv4.addSubnet('64:ff9b::', 96, 'ipv6');

/** The IPv4 address an IPv6 one carries (::ffff:a.b.c.d, 64:ff9b::/96), in any of its spellings. */
function embeddedIpv4(address: string): string | undefined {
  if (!carriesIpv4.check(address, 'ipv6')) return undefined;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (dotted) return dotted[1];
  // The prefix is spelled out, so the last two groups are the address's last 32 bits ('' is 0).
  const [hi, lo] = address
    .split(':')
    .slice(-2)
    .map((g) => parseInt(g || '0', 16));
  return [(hi as number) >> 8, (hi as number) & 255, (lo as number) >> 8, (lo as number) & 255].join('.');
}

/** Whether a webhook may be sent to this IP address (not private, loopback, link-local, metadata or reserved). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !refused.check(address, 'ipv4');
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return isPublicAddress(v4);
  return !refused.check(address, 'ipv6');
}
