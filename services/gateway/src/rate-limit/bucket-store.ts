import type { Knex } from '@bo/runtime';
import type { BucketStore, RatePolicy, RequestKind } from './limiter';

/**
 * The shared token buckets, one row per organization and kind in the gateway's schema
 * (`rate_limits`, migration 005). One statement refills a bucket by the time elapsed since it was
 * last touched, by the database's clock (the same for every replica), and takes a lease from it; the
 * row lock orders replicas taking at once, and a statement that started before another one's commit
 * refills nothing for the time already counted. takeFromBucket (limiter.ts) is the same arithmetic.
 */
export class PgBucketStore implements BucketStore {
  constructor(private readonly db: Knex) {}

  async take(orgId: number, kind: RequestKind, want: number, policy: RatePolicy): Promise<{ granted: number; left: number }> {
    const wanted = Math.min(want, policy.burst);
    const { rows } = await this.db.raw<{ rows: Array<{ granted: number; tokens: number }> }>(
      `insert into rate_limits as b (org_id, kind, tokens, granted, refilled_at)
       values (?, ?, ?::float8 - ?::integer, ?::integer, statement_timestamp())
       on conflict (org_id, kind) do update set (tokens, granted, refilled_at) = (
         select l.level - least(?::integer, floor(l.level)), least(?::integer, floor(l.level)), greatest(b.refilled_at, statement_timestamp())
         from (select least(?::float8, b.tokens + ?::float8 * greatest(0, extract(epoch from statement_timestamp() - b.refilled_at)::float8)) as level) l
       )
       returning granted, tokens`,
      [orgId, kind, policy.burst, wanted, wanted, wanted, wanted, policy.burst, policy.perSecond],
    );
    const row = rows[0] as { granted: number; tokens: number };
    return { granted: Number(row.granted), left: Number(row.tokens) };
  }
}
