import { randomUUID } from 'node:crypto';
import type { Envelope } from '@bo/contracts';
import type { Knex } from '@bo/runtime';
import { forwardedText, type ForwardedAnswer } from '../forwarded-answer';

export type Claim =
  /** `token` names this claim: only its holder may complete the key or end the lease. */
  { kind: 'new'; token: string } | { kind: 'replay'; envelope: Envelope } | { kind: 'mismatch' } | { kind: 'in_progress' };

/**
 * The gateway's fast path for a client's `Idempotency-Key`: a finished request's answer is replayed
 * without an RPC, and a request still running under the same key is refused with 409. Correctness
 * does not rest on it: each service records the key with its reply where the effect happens, so a
 * request this store lets through twice still takes effect once.
 *
 * A claim is a lease that expires, so a gateway that died mid-request cannot block its key. A key
 * is never forgotten after an unknown outcome: its lease ends at once and the retry goes to the
 * service, whose record answers the original result.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Knex,
    private readonly ttlHours: number,
  ) {}

  async claim(orgId: number, key: string, operation: string, hash: string, leaseMs: number): Promise<Claim> {
    const token = randomUUID();
    // Nearly every key is new: one statement claims it, with no transaction around it. It and
    // `complete` run on every keyed write, so they are fixed texts rather than built per call.
    const inserted = await this.db.raw<{ rowCount: number }>(
      `insert into idempotency_keys (org_id, key, operation, request_hash, lease_until, lease_token)
       values (?, ?, ?, ?, ${LEASE_END}, ?)
       on conflict (org_id, key) do nothing`,
      [orgId, key, operation, hash, leaseMs / 1000, token],
    );
    if (inserted.rowCount > 0) return { kind: 'new', token };
    return this.db.transaction(async (trx) => {
      const row = (await trx('idempotency_keys')
        .select(
          '*',
          trx.raw('created_at <= now() - make_interval(hours => ?) as expired', [this.ttlHours]),
          trx.raw('coalesce(lease_until <= now(), true) as lease_over'),
        )
        .where({ org_id: orgId, key })
        .forUpdate()
        .first()) as KeyRow | undefined;
      if (!row) return { kind: 'in_progress' } as const;
      if (row.expired) {
        await trx('idempotency_keys')
          .where({ org_id: orgId, key })
          .update({
            operation,
            request_hash: hash,
            status_code: null,
            response: null,
            created_at: trx.fn.now(),
            completed_at: null,
            lease_until: leaseEnd(trx, leaseMs),
            lease_token: token,
          });
        return { kind: 'new', token } as const;
      }
      if (row.request_hash !== hash || row.operation !== operation) return { kind: 'mismatch' } as const;
      if (row.completed_at !== null) return { kind: 'replay', envelope: row.response as Envelope } as const;
      if (!row.lease_over) return { kind: 'in_progress' } as const;
      // The earlier attempt's outcome is unknown or its gateway died: this one takes the key over.
      await trx('idempotency_keys')
        .where({ org_id: orgId, key })
        .update({ lease_until: leaseEnd(trx, leaseMs), lease_token: token });
      return { kind: 'new', token } as const;
    });
  }

  /**
   * Stores the answer, unless another request took the key over meanwhile (its own answer counts
   * then). An answer already serialized (a service's reply the gateway forwards as it came) is
   * stored as it is, without parsing it.
   */
  async complete(orgId: number, key: string, token: string, answer: StoredAnswer): Promise<void> {
    const json = 'forwarded' in answer ? forwardedText(answer) : JSON.stringify(answer);
    await this.db.raw(
      `update idempotency_keys set status_code = ?, response = ?, completed_at = now(), lease_until = null
       where org_id = ? and key = ? and lease_token = ?`,
      [answer.statusCode, json, orgId, key, token],
    );
  }

  /**
   * Ends the lease of a request whose outcome the gateway could not learn: the key and its body
   * stay (another body is still refused), and a retry is forwarded to the service at once.
   */
  async endLease(orgId: number, key: string, token: string): Promise<void> {
    await this.db('idempotency_keys')
      .where({ org_id: orgId, key, lease_token: token })
      .whereNull('completed_at')
      .update({ lease_until: this.db.fn.now() });
  }
}

/** An answer to keep for a key: an envelope, or a service's answer forwarded as it came. */
export type StoredAnswer = Envelope | ForwardedAnswer;

/** A key's row as the claim reads it, with whether its record expired and whether its lease is over. */
interface KeyRow {
  operation: string;
  request_hash: string;
  completed_at: Date | null;
  response: Envelope | null;
  expired: boolean;
  lease_over: boolean;
}

/** When a lease taken now ends (binding: its length in seconds). */
const LEASE_END = 'now() + make_interval(secs => ?)';

function leaseEnd(db: Knex, leaseMs: number) {
  return db.raw(LEASE_END, [leaseMs / 1000]);
}

/** How long a claim holds its key: longer than any RPC it covers, so only a dead gateway's claim runs out. */
export function leaseMsFor(rpcTimeoutMs: number): number {
  return rpcTimeoutMs * 2 + 1000;
}
