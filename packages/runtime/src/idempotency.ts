import { createHash, randomUUID } from 'node:crypto';
import type { RpcReply } from '@bo/contracts';
import type { Knex, SqlStatement } from './db';
import { takeDeferredWrites } from './outbox';
import { COMMIT_AHEAD, WITH_BEGIN } from './prepared';

/**
 * Idempotency where the effect happens (docs/design.md section 3). Every write command carries an
 * operation key (the client's Idempotency-Key, else one the gateway made for the HTTP request); the
 * service records (org, key, operation, request hash, reply) in the transaction of the effect, so a
 * redelivered or retried command finds the record and answers the same reply without a second effect.
 *
 * One key names one request in the whole API: the records of every service are kept in one table,
 * OPERATION_KEYS, keyed by (org, key), so a key recorded by another operation (of any service) or
 * with another body is found by the record's own insert, the effect rolls back, and the request is
 * refused (KEY_REUSED_REPLY). Records from before that table are still read from the service's own
 * `idempotency` table until they expire.
 */

/** The records of every service's keys: one table in a schema of its own, beside the services' schemas. */
export const OPERATION_KEYS_SCHEMA = 'idempotency';
export const OPERATION_KEYS = `${OPERATION_KEYS_SCHEMA}.operation_keys`;

/** The request's fingerprint: the same key sent with another body or operation is refused. */
export function requestHash(operation: string, body: unknown): string {
  return createHash('sha256').update(operation).update('\0').update(canonicalJson(body)).digest('hex');
}

/**
 * JSON with sorted keys, so the same body written in another key order is the same request. Only
 * called on bodies that passed the shape check of parseWith, so the recursion depth is bounded.
 */
export function canonicalJson(value: unknown): string {
  // Built by appending, with no entry pairs, mapped arrays or joins: it runs on every keyed write's
  // whole body. Its text is a recorded key's fingerprint, so it must never change: keys sorted by
  // UTF-16 code units (what sort() does with strings), an undefined value written as null.
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) text += ',';
      // A hole is written as nothing, as join() wrote it.
      if (i in value) text += canonicalJson(value[i]);
    }
    return text + ']';
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let text = '{';
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      text += `${i > 0 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(record[key])}`;
    }
    return text + '}';
  }
  return JSON.stringify(value) ?? 'null';
}

export interface OperationKey {
  orgId: number;
  key: string;
  operation: string;
  hash: string;
  /** Records older than this are forgotten: the key may be used again. */
  ttlHours: number;
}

export type RecordedReply =
  | { inProgress?: false; operation: string; hash: string; reply: RpcReply }
  /** A request holds the key (claimKey) and has not answered yet. */
  | { inProgress: true };

interface Row {
  operation: string;
  request_hash: string;
  reply: string;
  in_progress: boolean;
}

/**
 * The live record of a key, if a command with it already took effect (here or in another service)
 * or holds it while it runs (claimKey, its lease not over): this service's record from before
 * OPERATION_KEYS first, so its replies stay exactly as they were.
 */
export async function findRecorded(db: Knex, k: OperationKey): Promise<RecordedReply | undefined> {
  const result: unknown = await db.raw(
    `select operation, request_hash, reply, in_progress from (
       select operation, request_hash, reply, false as in_progress, 0 as rank from idempotency
       where org_id = ? and key = ? and created_at > now() - make_interval(hours => ?)
       union all
       select operation, request_hash, reply, claim is not null, 1 from ${OPERATION_KEYS}
       where org_id = ? and key = ? and created_at > now() - make_interval(hours => ?)
         and (claim is null or lease_until > now())) records
     order by rank limit 1`,
    [k.orgId, k.key, k.ttlHours, k.orgId, k.key, k.ttlHours],
  );
  const row = (result as { rows: Row[] }).rows[0];
  if (!row) return undefined;
  if (row.in_progress) return { inProgress: true };
  return { operation: row.operation, hash: row.request_hash, reply: JSON.parse(row.reply) as RpcReply };
}

/**
 * Takes the key for a command before any of its steps (a two-step write's gather asks other
 * services, and a saga's takes a step of its own there): a row of OPERATION_KEYS in progress, with
 * a claim token and a lease, committed on its own so that a twin arriving while the command runs, of
 * any operation and any service, finds it and is answered 409 without doing anything. Its reply
 * (recordReply with the token) or its release (releaseClaim) ends it; a process that dies leaves it
 * until its lease is over, and a retry then takes the key over.
 *
 * Answers the token, or what holds the key: the live record of a command that took effect, or a
 * command still in progress.
 *
 * With `read` (a handler's readWithClaim: a select of this service's own tables), the claim's
 * statement runs that read too and answers its rows beside the token: the gather's first read
 * costs no round trip of its own. The read sees the statement's snapshot, taken before any wait for
 * a twin's claim; what the gather decides on it must be checked where it is stored, as any read
 * with no lock is.
 */
export async function claimKey(
  db: Knex,
  k: OperationKey,
  leaseMs: number,
  read?: ClaimRead,
): Promise<{ token: string; read?: Array<Record<string, unknown>> } | { held: RecordedReply }> {
  const token = randomUUID();
  const claim = `insert into ${OPERATION_KEYS} as record (org_id, key, operation, request_hash, status, reply, claim, lease_until)
     values (?, ?, ?, ?, 0, '', ?, now() + make_interval(secs => ?::float8 / 1000))
     on conflict (org_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
       status = 0, reply = '', claim = excluded.claim, lease_until = excluded.lease_until, created_at = now()
     where record.created_at <= now() - make_interval(hours => ?) or (record.claim is not null and record.lease_until <= now())
     returning 1`;
  const bindings = [k.orgId, k.key, k.operation, k.hash, token, leaseMs, k.ttlHours];
  if (!read) {
    const { rows } = await db.raw<{ rows: unknown[] }>(claim, bindings);
    if (rows.length === 1) return { token };
  } else {
    // One row when the read finds none (its marker null), else one per row read, each telling the claim.
    const { rows } = await db.raw<{ rows: Array<Record<string, unknown> & { bo_claimed: number; bo_read: boolean | null }> }>(
      `with claimed as (${claim}), claim_read as (select true as bo_read, r.* from (${read.sql}) r)
       select (select count(*) from claimed)::int as bo_claimed, claim_read.* from (select 1) one left join claim_read on true`,
      [...bindings, ...read.bindings],
    );
    if (rows[0]?.bo_claimed === 1) {
      const found = rows.filter((r) => r.bo_read).map(({ bo_claimed: _c, bo_read: _r, ...row }) => row);
      return { token, read: found };
    }
  }
  // Held: by a record or a claim, here, or in the service's table from before OPERATION_KEYS.
  return { held: (await findRecorded(db, k)) ?? { inProgress: true } };
}

/** A select that a key's claim runs in its statement (GatherApply.readWithClaim), with knex's `?` placeholders. */
export interface ClaimRead {
  sql: string;
  bindings: readonly Knex.RawBinding[];
}

/** Gives the key of a command that answered nothing to record (an outage, a transient refusal) back: a retry runs it afresh. */
export async function releaseClaim(db: Knex, k: OperationKey, token: string): Promise<void> {
  await db.raw(`delete from ${OPERATION_KEYS} where org_id = ? and key = ? and claim = ?`, [k.orgId, k.key, token]);
}

/** The function that fails a reply's record when a twin's is live (runtime migration 007), and its SQLSTATE. */
export const RECORDED_CHECK = 'require_recorded';
export const ALREADY_RECORDED_SQLSTATE = 'BO409';

/**
 * Records the reply inside the caller's transaction. False when a live record of the key exists:
 * a twin of this command committed first, or another request (of any service) took the key; the
 * caller must roll back and answer what findRecorded finds. A concurrent twin or other request
 * still running makes this wait on the key's index entry until it ends.
 *
 * The statement fails rather than records nothing when the twin's record is live, so with `commit`
 * it can carry the transaction's COMMIT (prepared.ts): a COMMIT behind a failed statement rolls back,
 * exactly when the caller would have. With `commit` it must be the transaction's last statement;
 * the answer is then also the commit's (false: nothing committed).
 */
export async function recordReply(
  db: Knex | Knex.Transaction,
  k: OperationKey,
  reply: RpcReply,
  opts: { commit?: boolean; claim?: string } = {},
): Promise<boolean> {
  // What the transaction still waits to write (the events' outbox rows, parts handed over with
  // storeWithCommit) goes in the same statement: one round trip, and nothing of it without the record.
  const writes = takeDeferredWrites(db);
  const recorded = recordedInsert(k, reply.status, { sql: '?', bindings: [JSON.stringify(reply)] }, opts.claim);
  const statement = db.raw(
    `with ${writes ? `${writes.sql}, ` : ''}recorded as (${recorded.sql}) select ${RECORDED_CHECK}(count(*)) from recorded`,
    [...(writes?.bindings ?? []), ...recorded.bindings],
  );
  try {
    await (opts.commit ? statement.options(COMMIT_AHEAD) : statement);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === ALREADY_RECORDED_SQLSTATE) return false;
    throw err;
  }
}

/**
 * The insert of a key's record (a CTE body returning the key, or nothing when a live record of the
 * key is there: a twin's, another request's, or a claim not this one's), the reply's JSON text given
 * by SQL (`replyText`) so a statement may still fill in what it draws (one-statement.ts).
 */
export function recordedInsert(k: OperationKey, status: number, replyText: SqlStatement, claim: string | undefined): SqlStatement {
  return {
    sql: `insert into ${OPERATION_KEYS} as record (org_id, key, operation, request_hash, status, reply) values (?, ?, ?, ?, ?, ${replyText.sql})
       on conflict (org_id, key) do update set operation = excluded.operation, request_hash = excluded.request_hash,
         status = excluded.status, reply = excluded.reply, created_at = now(), claim = null, lease_until = null
       where record.claim = ?::uuid or record.created_at <= now() - make_interval(hours => ?)
         or (record.claim is not null and record.lease_until <= now())
       returning key`,
    bindings: [k.orgId, k.key, k.operation, k.hash, status, ...replyText.bindings, claim ?? null, k.ttlHours],
  };
}

/** The function that fails the hold on a key a twin holds (runtime migration 008), and its SQLSTATE. */
export const KEY_FREE_CHECK = 'require_key_free';
export const KEY_IN_USE_SQLSTATE = 'BO423';

/**
 * Holds the key for the caller's transaction, taken as its first statement: a twin of this command
 * whose transaction is still running holds it, and then the transaction's first statement fails
 * with KEY_IN_USE_SQLSTATE. The hold is a transaction-level advisory lock, so it ends with the
 * transaction however that ends, even with its process killed: nothing is left to expire.
 *
 * It goes out with the transaction's BEGIN (WITH_BEGIN), so it costs no round trip. Advisory locks
 * are database-wide, as a key is: a request of another service running with the key holds it too.
 * The lock's number is 64 bits of a hash of the organization and key under a name of its own; two
 * keys running at once sharing one is vanishingly unlikely, and that would only be a 409.
 */
export async function holdKey(trx: Knex.Transaction, k: OperationKey): Promise<void> {
  const lock = keyLockOf(k);
  // A two-step write holds its key by a row in progress (claimKey) instead: that holds it too. The
  // statement goes out with BEGIN, which takes no bindings: the organization (an integer) and the
  // key (a string literal, its quotes doubled) are written into it, as the lock's number is.
  const org = Math.trunc(k.orgId);
  const key = `'${k.key.replaceAll("'", "''")}'`;
  await trx
    .raw(
      `select ${KEY_FREE_CHECK}(pg_try_advisory_xact_lock(${lock}) and not exists (
         select 1 from ${OPERATION_KEYS} where org_id = ${org} and key = ${key} and claim is not null and lease_until > now()))`,
    )
    .options(WITH_BEGIN);
}

/** The number of the advisory lock that holds a key while a command with it runs (holdKey, and a one-statement write's `held`). */
export function keyLockOf(k: Pick<OperationKey, 'orgId' | 'key'>): bigint {
  return createHash('sha256').update(`operation key\0${k.orgId}\0${k.key}`).digest().readBigInt64BE(0);
}

/**
 * The key's hold as a CTE body answering one row (`free`), for a write that is one statement
 * (one-statement.ts): it fails with KEY_IN_USE_SQLSTATE, as holdKey's does, while a twin runs or a
 * claim holds the key, and otherwise holds it to the statement's end. `claim`: the write's own
 * (claimKey), which holds the key for it, so it is no twin's.
 */
export function keyHeldSql(k: OperationKey, claim?: string): SqlStatement {
  return {
    sql: `select ${KEY_FREE_CHECK}(pg_try_advisory_xact_lock(?::bigint) and not exists (
            select 1 from ${OPERATION_KEYS} where org_id = ? and key = ? and claim is not null and claim is distinct from ?::uuid
               and lease_until > now())) as free`,
    bindings: [keyLockOf(k).toString(), k.orgId, k.key, claim ?? null],
  };
}

/** Whether a transaction failed because a twin of its command held the key (holdKey). */
export function isKeyInUse(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === KEY_IN_USE_SQLSTATE;
}

/** How long, one after the other, a key found held right after the request's own statement failed is waited for (afterOwnStatement). */
export const OWN_HOLD_WAITS_MS = [5, 10, 20, 40, 80] as const;

/**
 * Runs `locked` (a transaction that holds the request's key first, holdKey) right after the
 * request's own one-statement write with that key failed (storeAlone). PostgreSQL sends a
 * statement's error before it ends the statement's transaction, and the end is what releases the
 * key's advisory lock; a backend put off the CPU between the two still holds the key when the
 * fallback's transaction asks for it. So a key found held here is asked for again a few times,
 * `OWN_HOLD_WAITS_MS` apart (155 ms in all), before it is taken for a twin's and answered 409.
 */
export async function afterOwnStatement<T>(
  locked: () => Promise<T>,
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (const wait of OWN_HOLD_WAITS_MS) {
    try {
      return await locked();
    } catch (err) {
      if (!isKeyInUse(err)) throw err;
      await pause(wait);
    }
  }
  return locked();
}

/** The answer to a command whose twin is still running: retry later, when its record answers. */
export const KEY_IN_USE_REPLY: RpcReply = {
  ok: false,
  status: 409,
  code: 'idempotency_conflict',
  message: 'A request with this Idempotency-Key is still in progress; retry later',
};

/**
 * The answer to a key that names another request (another operation, or another body): 422, as the
 * IETF Idempotency-Key draft says, not 409, which answers a twin still running.
 */
export const KEY_REUSED_REPLY: RpcReply = {
  ok: false,
  status: 422,
  code: 'idempotency_key_reused',
  message: 'This Idempotency-Key was already used with another operation or another body; send this request with a new key',
};

/** The answer to a command whose key was recorded: the same reply, or a refusal if it is another request; 409 while one is in progress. */
export function replayOf(recorded: RecordedReply, k: OperationKey): RpcReply {
  if (recorded.inProgress) return KEY_IN_USE_REPLY;
  if (recorded.operation === k.operation && recorded.hash === k.hash) return recorded.reply;
  return KEY_REUSED_REPLY;
}

/** Raised inside a transaction whose key a twin recorded first: roll back, then answer the twin's reply. */
export class AlreadyRecorded extends Error {
  constructor() {
    super('operation key already recorded');
  }
}
