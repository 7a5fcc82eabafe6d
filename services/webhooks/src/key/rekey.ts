import { integrations } from '@bo/contracts';
import { OPERATION_KEYS, type Knex } from '@bo/runtime';
import type { SecretBox } from '../domain/secret-box';

const BATCH = 500;

/** What rekey did: secrets sealed again, and those no key given opens (left as they are). */
export interface Rekeyed {
  endpoints: number;
  records: number;
  unreadable: string[];
}

/** The operations whose answers carry a secret, sealed in their records (secret-reply.ts). */
const SECRET_ANSWERS = [integrations.createEndpoint.name, integrations.rotateSecret.name];

/**
 * `npm run webhooks -- rekey`: every stored secret sealed under the key that seals now (the first of
 * WEBHOOKS_SECRET_KEYS), so the other keys can be removed: each endpoint's secret and previous
 * secret, and the secret in each recorded answer of create and rotate_secret (one recorded in the
 * clear before answers were sealed included). Each row is written only if unchanged since it was
 * read, so a rotation meanwhile keeps its own (already current) secret. Runs beside the service.
 */
export async function rekey(db: Knex, box: SecretBox): Promise<Rekeyed> {
  const done: Rekeyed = { endpoints: 0, records: 0, unreadable: [] };
  const current = `v2:${box.sealingId}:`;
  const reseal = (stored: string, what: string): string | undefined => {
    if (box.isCurrent(stored)) return stored;
    try {
      return box.seal(stored.startsWith('whsec_') ? stored : box.open(stored));
    } catch (err) {
      done.unreadable.push(`${what}: ${(err as Error).message}`);
      return undefined;
    }
  };

  type Endpoint = { id: number; secret: string; previous_secret: string | null };
  for (let after = 0; ;) {
    const rows = await db('endpoints')
      .where('id', '>', after)
      .whereRaw('(not starts_with(secret, ?) or not starts_with(coalesce(previous_secret, ?), ?))', [current, current, current])
      .orderBy('id')
      .limit(BATCH)
      .select<Endpoint[]>('id', 'secret', 'previous_secret');
    for (const row of rows) {
      const secret = reseal(row.secret, `endpoint ${row.id}`);
      const previous = row.previous_secret === null ? null : reseal(row.previous_secret, `endpoint ${row.id}'s previous secret`);
      if (secret === undefined || previous === undefined) continue;
      done.endpoints += await db('endpoints')
        .where({ id: row.id, secret: row.secret })
        .whereRaw('previous_secret is not distinct from ?', [row.previous_secret])
        .update({ secret, previous_secret: previous });
    }
    if (rows.length < BATCH) break;
    after = (rows.at(-1) as Endpoint).id;
  }

  type Recorded = { org_id: number; key: string; reply: string };
  for (let after: [number, string] = [0, '']; ;) {
    const rows = await db(OPERATION_KEYS)
      .whereIn('operation', SECRET_ANSWERS)
      .whereRaw('(org_id, key) > (?, ?)', after)
      .orderBy(['org_id', 'key'])
      .limit(BATCH)
      .select<Recorded[]>('org_id', 'key', 'reply');
    for (const row of rows) {
      const reply = JSON.parse(row.reply) as { ok: boolean; body?: { secret?: unknown } };
      const stored = reply.ok ? reply.body?.secret : undefined;
      if (typeof stored !== 'string' || box.isCurrent(stored)) continue;
      const secret = reseal(stored, `the recorded answer of key ${row.key} (organization ${row.org_id})`);
      if (secret === undefined) continue;
      done.records += await db(OPERATION_KEYS)
        .where({ org_id: row.org_id, key: row.key, reply: row.reply })
        .update({ reply: JSON.stringify({ ...reply, body: { ...reply.body, secret } }) });
    }
    if (rows.length < BATCH) break;
    const last = rows.at(-1) as Recorded;
    after = [last.org_id, last.key];
  }
  return done;
}
