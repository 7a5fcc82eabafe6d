import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from '@bo/runtime';

const KEY_PREFIX = 'bo_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Creates a key for one organization; the plaintext is shown once and never stored. */
export async function createApiKey(db: Knex, orgId: number, label?: string): Promise<{ id: number; key: string }> {
  if (!Number.isInteger(orgId) || orgId <= 0) throw new Error('org must be a positive integer');
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const [row] = await db('api_keys')
    .insert({ org_id: orgId, key_hash: hashKey(key), key_prefix: key.slice(0, 10), label: label ?? null })
    .returning<Array<{ id: number }>>('id');
  return { id: (row as { id: number }).id, key };
}

/** Revokes a key given in plaintext; answers whether a live key was revoked. */
export async function revokeApiKey(db: Knex, key: string): Promise<boolean> {
  const n = await db('api_keys')
    .where({ key_hash: hashKey(key) })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
  return n > 0;
}

/** A cached key is looked up again in the background once this share of its cache time has passed. */
const REFRESH_AHEAD = 0.8;

/**
 * Looks keys up with a short cache so a hot path does not hit the database on every call. A key in
 * use never expires under its requests: past 80 % of its cache time one lookup refreshes it behind
 * them, and the requests that must wait for a lookup (a new key, one unused for the cache time) share
 * one. Before, every request in flight when a busy key expired queried the database for it at once
 * (32 lookups every 5 s at 32 connections). A revoked key still stops working within the cache time:
 * the refresh that finds it revoked drops it.
 */
export class ApiKeyStore {
  private readonly cache = new Map<string, { orgId: number; fetchedAt: number }>();
  private readonly lookups = new Map<string, Promise<number | undefined>>();

  constructor(
    private readonly db: Knex,
    private readonly cacheMs: number,
  ) {}

  /**
   * Whether a request with the key costs no lookup of its own: the key is known here now (cached,
   * not expired), or a lookup of it is under way, which the request joins.
   */
  costsNoLookup(key: string): boolean {
    if (this.lookups.has(key)) return true;
    const cached = this.cache.get(key);
    return cached !== undefined && Date.now() - cached.fetchedAt < this.cacheMs;
  }

  /** Keyed by the key itself: it is in this process's memory with the request anyway, and hashing is the hot path. */
  async orgOf(key: string): Promise<number | undefined> {
    const cached = this.cache.get(key);
    if (cached) {
      const age = Date.now() - cached.fetchedAt;
      if (age < this.cacheMs) {
        // A failed refresh leaves the entry to expire; the lookup after that answers the failure.
        if (age >= this.cacheMs * REFRESH_AHEAD) this.lookup(key).catch(() => undefined);
        return cached.orgId;
      }
    }
    return this.lookup(key);
  }

  /** The key's lookup in flight, or a new one. */
  private lookup(key: string): Promise<number | undefined> {
    let pending = this.lookups.get(key);
    if (pending === undefined) {
      pending = this.fetch(key).finally(() => this.lookups.delete(key));
      this.lookups.set(key, pending);
    }
    return pending;
  }

  private async fetch(key: string): Promise<number | undefined> {
    // Its age counts from before the read, so a key revoked meanwhile is dropped within the cache time.
    const started = Date.now();
    const row = await this.db('api_keys')
      .select('org_id')
      .where({ key_hash: hashKey(key) })
      .whereNull('revoked_at')
      .first<{ org_id: number } | undefined>();
    if (!row) {
      this.cache.delete(key);
      return undefined;
    }
    if (this.cacheMs > 0) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, { orgId: row.org_id, fetchedAt: started });
    }
    return row.org_id;
  }
}
