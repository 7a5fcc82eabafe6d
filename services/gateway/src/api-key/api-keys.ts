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

/** The snapshot is read again in the background once this share of API_KEY_CACHE_MS has passed. */
const REFRESH_AHEAD = 0.8;
/** Keys made since the snapshot are looked for at most this often, however many unknown keys arrive. */
export const NEW_KEYS_EVERY_MS = 100;
/** Most keys remembered by their text (below), past which the memo starts again. */
const MEMO_MAX = 10_000;

/**
 * Every live API key of the system in this replica's memory, by its hash: one statement reads them
 * all every API_KEY_CACHE_MS (in the background, while requests go on; a snapshot older than that is
 * waited for, so a revocation takes effect within that time), and one statement at most every
 * NEW_KEYS_EVERY_MS looks for keys made since (by id). A request's key is then answered from memory,
 * valid or not, and a flood of made-up keys costs the database nothing per request: at most ten
 * statements a second whatever it sends, so no good key is ever refused for the lookups bad ones
 * cost. The price is memory, about 150 bytes a live key (15 MB at 100,000 keys).
 *
 * With a cache time of 0 (tests that revoke a key and use it at once) there is no snapshot: each
 * request looks its key up.
 */
export class ApiKeyStore {
  private byHash = new Map<string, number>();
  /** Keys requests sent, by their text, so a known key is not hashed again: begun again with each snapshot. */
  private memo = new Map<string, number>();
  private loadedAt = -Infinity;
  private maxId = 0;
  private loading?: Promise<void>;
  /** The look for new keys that has not started yet: a request waits for one that starts after it came. */
  private nextNewKeys?: Promise<void>;
  private newKeysStartedAt = -Infinity;

  constructor(
    private readonly db: Knex,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The organization of a key as this replica's snapshot has it: a number, null when the snapshot
   * (fresh) does not hold it, undefined when there is no fresh snapshot to say.
   */
  fromMemory(key: string): number | null | undefined {
    if (this.cacheMs <= 0) return undefined;
    const age = this.now() - this.loadedAt;
    if (age >= this.cacheMs * REFRESH_AHEAD) void this.reload().catch(() => undefined);
    if (age >= this.cacheMs) return undefined;
    const memo = this.memo.get(key);
    if (memo !== undefined) return memo;
    const org = this.byHash.get(hashKey(key));
    if (org === undefined) return null;
    if (this.memo.size >= MEMO_MAX) this.memo.clear();
    this.memo.set(key, org);
    return org;
  }

  /**
   * The organization of a key after the database was asked: a fresh snapshot, then, if it does not
   * hold the key, the next look for keys made since. Undefined: no live key.
   */
  async orgOf(key: string): Promise<number | undefined> {
    if (this.cacheMs <= 0) return this.fetchOne(key);
    if (this.now() - this.loadedAt >= this.cacheMs) await this.reload();
    const known = this.fromMemory(key);
    if (typeof known === 'number') return known;
    await this.newKeys();
    return this.byHash.get(hashKey(key));
  }

  /** Starts a look for keys made since the snapshot, unless one is due already; for a key refused before it was looked for. */
  lookForNewKeys(): void {
    if (this.cacheMs > 0) void this.newKeys().catch(() => undefined);
  }

  private reload(): Promise<void> {
    this.loading ??= (async () => {
      const started = this.now();
      const rows = await this.db('api_keys').select('id', 'key_hash', 'org_id').whereNull('revoked_at');
      const byHash = new Map<string, number>();
      let maxId = 0;
      for (const row of rows as Array<{ id: number; key_hash: string; org_id: number }>) {
        byHash.set(row.key_hash, row.org_id);
        if (row.id > maxId) maxId = row.id;
      }
      // Its age counts from before the read, so a key revoked meanwhile is dropped within the cache time.
      this.byHash = byHash;
      this.memo = new Map();
      // Keys found since by a look for new ones are looked for again from the snapshot's newest.
      this.maxId = maxId;
      this.loadedAt = started;
    })().finally(() => (this.loading = undefined));
    return this.loading;
  }

  /** The next look for new keys that starts from now on, at most one every NEW_KEYS_EVERY_MS. */
  private newKeys(): Promise<void> {
    this.nextNewKeys ??= (async () => {
      // Always after a turn of the event loop, so every request that joined it came before it started.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, this.newKeysStartedAt + NEW_KEYS_EVERY_MS - this.now())));
      this.nextNewKeys = undefined;
      this.newKeysStartedAt = this.now();
      const rows = await this.db('api_keys')
        .select('id', 'key_hash', 'org_id')
        .where('id', '>', this.maxId)
        .whereNull('revoked_at')
        .orderBy('id');
      // A key whose id came before one seen already but committed after it is found by the next snapshot.
      for (const row of rows as Array<{ id: number; key_hash: string; org_id: number }>) {
        this.byHash.set(row.key_hash, row.org_id);
        if (row.id > this.maxId) this.maxId = row.id;
      }
    })();
    return this.nextNewKeys;
  }

  private async fetchOne(key: string): Promise<number | undefined> {
    const row = await this.db('api_keys')
      .select('org_id')
      .where({ key_hash: hashKey(key) })
      .whereNull('revoked_at')
      .first<{ org_id: number } | undefined>();
    return row?.org_id;
  }
}
