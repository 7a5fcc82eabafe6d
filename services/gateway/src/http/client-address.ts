import { BlockList, isIP } from 'node:net';

/**
 * The proxies whose X-Forwarded-For the gateway believes (TRUST_PROXY): addresses and CIDR blocks,
 * IPv4 or IPv6. Empty, none is: every client is the address of its socket.
 */
export interface TrustedProxies {
  /** As configured, for messages. */
  readonly text: string;
  readonly any: boolean;
  has(address: string): boolean;
}

/** Parses TRUST_PROXY (`10.0.0.0/8, 192.168.1.7, fd00::/8`); throws naming the entry it cannot read. */
export function trustedProxies(text: string): TrustedProxies {
  const list = new BlockList();
  let any = false;
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(String(prefix)) || prefix > max) {
      throw new Error(`"${entry}" is not an IPv4 or IPv6 address or CIDR block (e.g. 10.0.0.0/8, fd00::/8)`);
    }
    list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
    any = true;
  }
  return {
    text,
    any,
    has: (address) => {
      const family = isIP(address);
      return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/** An address as the limits key it: IPv4 written as IPv4 even when the socket is IPv6 (`::ffff:10.0.0.1`). */
export function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** One X-Forwarded-For entry as an address: a port some proxies add (`10.0.0.1:5678`, `[fd00::1]:80`) is dropped. */
function hopAddress(hop: string): string | undefined {
  const text = hop.trim();
  if (isIP(text)) return plainAddress(text);
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed && isIP(bracketed[1] as string) === 6) return plainAddress(bracketed[1] as string);
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text);
  if (withPort && isIP(withPort[1] as string) === 4) return withPort[1];
  return undefined;
}

/**
 * The client a request comes from, as the per-client limits key it. The socket's address, unless it
 * is a trusted proxy: then X-Forwarded-For is read from its right end (each proxy appends the address
 * it was connected from), hop by hop while the address reached is a trusted proxy too. The first
 * address that is not is the client. Entries left of it are the client's own words and are never
 * read, so a client cannot choose the address it is limited as; an entry a trusted proxy wrote that
 * is no address stops the walk at that proxy.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let address = plainAddress(socketAddress ?? '');
  if (!trusted.any || forwardedFor === undefined || !trusted.has(address)) return address;
  const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hopAddress(hops[i] as string);
    if (hop === undefined) return address;
    address = hop;
    if (!trusted.has(address)) return address;
  }
  return address;
}
