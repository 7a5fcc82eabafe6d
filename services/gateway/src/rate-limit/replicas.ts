import { randomUUID } from 'node:crypto';
import type { Knex } from '@bo/runtime';

/** How often a replica says it is alive, and how long one unheard of still counts. */
export const REPLICA_HEARTBEAT_MS = 1000;
const REPLICA_LIVE_MS = 3 * REPLICA_HEARTBEAT_MS;
/** Rows of replicas gone this long are deleted (by whichever replica beats). */
const REPLICA_FORGOTTEN_MS = 3_600_000;

/**
 * The gateway replicas alive now, so each takes its share of what one organization may have in
 * flight (RATE_LIMIT_IN_FLIGHT over all of them). Each replica writes its row in the gateway's schema
 * (`replicas`, migration 006) every REPLICA_HEARTBEAT_MS, with the same statement counting the rows
 * written within three beats, and deletes its row when it stops. A replica that dies stops counting
 * within three beats; one that starts counts for the others from their next beat, so for one beat
 * the replicas together may admit one share more than the cap. Without the database a replica keeps
 * the count it last saw.
 */
export class ReplicaRegistry {
  readonly id = randomUUID();
  private live = 1;

  constructor(
    private readonly db: Knex,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Replicas alive, this one included. */
  count(): number {
    return this.live;
  }

  /** This replica's share of a cap over all replicas: a whole part of it, at least 1. */
  share(cap: number): number {
    return Math.max(1, Math.floor(cap / this.live));
  }

  /** One heartbeat: writes this replica's row and counts the live ones. */
  async beat(): Promise<void> {
    try {
      const { rows } = await this.db.raw<{ rows: Array<{ live: number }> }>(
        `with me as (
           insert into replicas (id, seen_at) values (?, statement_timestamp())
           on conflict (id) do update set seen_at = excluded.seen_at
           returning id),
         gone as (
           delete from replicas where seen_at < statement_timestamp() - make_interval(secs => ?::float8 / 1000))
         select count(*)::int as live from replicas where id <> ? and seen_at > statement_timestamp() - make_interval(secs => ?::float8 / 1000)`,
        [this.id, REPLICA_FORGOTTEN_MS, this.id, REPLICA_LIVE_MS],
      );
      this.live = 1 + Number(rows[0]?.live ?? 0);
    } catch (err) {
      this.onError(err);
    }
  }

  /** Leaves: the others take its share from their next beat. */
  async leave(): Promise<void> {
    await this.db('replicas')
      .where({ id: this.id })
      .delete()
      .catch((err: unknown) => this.onError(err));
  }
}
