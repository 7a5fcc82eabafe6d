import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isPublicAddress } from '../domain/addresses';

export interface TargetRules {
  WEBHOOKS_ALLOW_HTTP: boolean;
  WEBHOOKS_ALLOW_PRIVATE: boolean;
}

/**
 * Where one attempt connects: the address checked, which the connection then uses (no second
 * lookup); or why none may be. `lookup` says a name found no address: `absent` (the name or its
 * addresses do not exist), `unanswered` (no answer in time, or a failing nameserver).
 */
export type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string; lookup?: LookupFailure['kind'] };

export interface Address {
  address: string;
  family: number;
}

/** Resolves a name to every address it has, or rejects with a LookupFailure. */
export type Resolver = (host: string) => Promise<Address[]>;

export class LookupFailure extends Error {
  constructor(
    readonly kind: 'absent' | 'unanswered',
    message: string,
  ) {
    super(message);
  }
}

/** Answers that say the name has no address; every other error is a nameserver that did not answer. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME', 'EBADNAME']);

/**
 * Names resolved by DNS through c-ares (dns.Resolver), on the event loop: a nameserver that never
 * answers holds nothing but this lookup, where dns.lookup (getaddrinfo) would hold one of libuv's
 * four threads, which every file, crypto and other lookup of the process shares. Each lookup asks
 * A and AAAA at once and ends by `timeoutMs` whatever the nameservers do. `servers` (host or
 * host:port) replace the system's (/etc/resolv.conf); /etc/hosts is not read.
 */
export function dnsResolver(opts: { timeoutMs: number; servers?: readonly string[] }): Resolver {
  return async (host) => {
    const resolver = new dns.Resolver({ timeout: opts.timeoutMs, tries: 1 });
    if (opts.servers?.length) resolver.setServers(opts.servers);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(new LookupFailure('unanswered', `no answer from DNS within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
    });
    try {
      const answers = await Promise.race([Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]), deadline]);
      const addresses = answers.flatMap((a, i) =>
        a.status === 'fulfilled' ? a.value.map((address) => ({ address, family: i === 0 ? 4 : 6 })) : [],
      );
      if (addresses.length) return addresses;
      const codes = answers.map((a) => (a.status === 'rejected' ? String((a.reason as { code?: string }).code) : 'ENODATA'));
      if (codes.every((c) => ABSENT.has(c))) throw new LookupFailure('absent', 'no such name, or no address for it');
      throw new LookupFailure('unanswered', `DNS did not answer (${[...new Set(codes)].join(', ')})`);
    } finally {
      clearTimeout(timer);
    }
  };
}

const resolvers = new WeakMap<object, Resolver>();

/** The service's resolver, made once from its settings. */
export function settingsResolver(settings: { WEBHOOKS_DNS_TIMEOUT_MS: number; WEBHOOKS_DNS_SERVERS: readonly string[] }): Resolver {
  let resolver = resolvers.get(settings);
  if (!resolver) {
    resolver = dnsResolver({ timeoutMs: settings.WEBHOOKS_DNS_TIMEOUT_MS, servers: settings.WEBHOOKS_DNS_SERVERS });
    resolvers.set(settings, resolver);
  }
  return resolver;
}

/** localhost and its subdomains are this host (RFC 6761): never asked of DNS. */
function isLocalhost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The scheme rule alone: https, or http where allowed. */
export function schemeProblem(url: URL, rules: TargetRules): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && rules.WEBHOOKS_ALLOW_HTTP) return undefined;
  return 'must be an https URL';
}

/** Said of a refused address, which is never named: the answer would tell a tenant what an internal name resolves to. */
const REFUSED_ADDRESS = 'a loopback, private, link-local or reserved address';

/**
 * The address to connect to for a URL, or why none may be: the scheme, then every address the host
 * resolves to (one private address refuses the host: a name resolving to a public and a private
 * address could be answered either way next time). The connection goes to the address checked
 * here, so a name that resolves elsewhere a moment later (DNS rebinding) changes nothing.
 */
export async function resolveTarget(url: URL, rules: TargetRules, resolve: Resolver): Promise<Target> {
  const scheme = schemeProblem(url, rules);
  if (scheme) return { ok: false, problem: scheme };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Address[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else if (isLocalhost(host))
    addresses = [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      const kind = err instanceof LookupFailure ? err.kind : 'unanswered';
      return { ok: false, problem: `host ${host} does not resolve: ${(err as Error).message}`, lookup: kind };
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, problem: `host ${host} does not resolve`, lookup: 'absent' };
  if (!rules.WEBHOOKS_ALLOW_PRIVATE && addresses.some((a) => !isPublicAddress(a.address)))
    return { ok: false, problem: isIP(host) ? `is ${REFUSED_ADDRESS}` : `resolves to ${REFUSED_ADDRESS}` };
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
