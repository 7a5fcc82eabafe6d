import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from '../domain/addresses';

export interface TargetRules {
  WEBHOOKS_ALLOW_HTTP: boolean;
  WEBHOOKS_ALLOW_PRIVATE: boolean;
}

/** Where one attempt connects: the address checked, which the connection then uses (no second lookup). */
export type Target = { ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string; unresolved?: true };

/** Resolves a name to every address it has; a stand-in in tests. */
export type Resolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

const RESOLVE_TIMEOUT_MS = 3000;

export const systemResolver: Resolver = async (host) => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${RESOLVE_TIMEOUT_MS} ms`)), RESOLVE_TIMEOUT_MS);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/** The scheme rule alone: https, or http where allowed. */
export function schemeProblem(url: URL, rules: TargetRules): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && rules.WEBHOOKS_ALLOW_HTTP) return undefined;
  return 'must be an https URL';
}

/**
 * The address to connect to for a URL, or why none may be: the scheme, then every address the host
 * resolves to (one private address refuses the host: a name resolving to a public and a private
 * address could be answered either way next time). The connection goes to the address checked
 * here, so a name that resolves elsewhere a moment later (DNS rebinding) changes nothing.
 */
export async function resolveTarget(url: URL, rules: TargetRules, resolve: Resolver = systemResolver): Promise<Target> {
  const scheme = schemeProblem(url, rules);
  if (scheme) return { ok: false, problem: scheme };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (err) {
      return { ok: false, problem: `host ${host} does not resolve (${(err as Error).message})`, unresolved: true };
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, problem: `host ${host} does not resolve`, unresolved: true };
  if (!rules.WEBHOOKS_ALLOW_PRIVATE) {
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return { ok: false, problem: `resolves to ${blocked.address}, a loopback, private, link-local or reserved address` };
  }
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
