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

/** Looks keys up with a short cache so a hot path does not hit the database on every call. */
export class ApiKeyStore {
  private readonly cache = new Map<string, { orgId: number; until: number }>();

  constructor(
    private readonly db: Knex,
    private readonly cacheMs: number,
  ) {}

  /** Keyed by the key itself: it is in this process's memory with the request anyway, and hashing is the hot path. */
  async orgOf(key: string): Promise<number | undefined> {
    const cached = this.cache.get(key);
    if (cached && cached.until > Date.now()) return cached.orgId;
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
      this.cache.set(key, { orgId: row.org_id, until: Date.now() + this.cacheMs });
    }
    return row.org_id;
  }
}
