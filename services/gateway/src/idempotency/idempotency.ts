import { createHash } from 'node:crypto';
import type { Envelope } from '@bo/contracts';
import type { Knex } from '@bo/runtime';

const TTL_MS = 24 * 60 * 60 * 1000;

export type Claim =
  | { kind: 'new' }
  | { kind: 'replay'; envelope: Envelope }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

export function requestHash(operation: string, body: unknown): string {
  return createHash('sha256').update(operation).update('\0').update(canonicalJson(body)).digest('hex');
}

/** JSON with sorted keys, so the same body written in another key order is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * `Idempotency-Key` on writes (DESIGN.md section 3): the first request with a key claims it; the same
 * key and body within 24 h replays the stored answer; another body is refused.
 */
export class IdempotencyStore {
  constructor(private readonly db: Knex) {}

  async claim(orgId: number, key: string, operation: string, hash: string): Promise<Claim> {
    return this.db.transaction(async (trx) => {
      const inserted = await trx('idempotency_keys')
        .insert({ org_id: orgId, key, operation, request_hash: hash })
        .onConflict(['org_id', 'key'])
        .ignore()
        .returning('key');
      if (inserted.length > 0) return { kind: 'new' } as const;
      const row = await trx('idempotency_keys').where({ org_id: orgId, key }).forUpdate().first();
      if (!row) return { kind: 'in_progress' } as const;
      if (Date.now() - new Date(row.created_at).getTime() > TTL_MS) {
        await trx('idempotency_keys')
          .where({ org_id: orgId, key })
          .update({ operation, request_hash: hash, status_code: null, response: null, created_at: trx.fn.now(), completed_at: null });
        return { kind: 'new' } as const;
      }
      if (row.request_hash !== hash) return { kind: 'mismatch' } as const;
      if (row.completed_at === null) return { kind: 'in_progress' } as const;
      return { kind: 'replay', envelope: row.response as Envelope } as const;
    });
  }

  async complete(orgId: number, key: string, envelope: Envelope): Promise<void> {
    await this.db('idempotency_keys')
      .where({ org_id: orgId, key })
      .update({ status_code: envelope.statusCode, response: JSON.stringify(envelope), completed_at: this.db.fn.now() });
  }

  /** Forgets a claim whose request failed before a service answered, so the client may retry it. */
  async release(orgId: number, key: string): Promise<void> {
    await this.db('idempotency_keys').where({ org_id: orgId, key }).whereNull('completed_at').delete();
  }
}
