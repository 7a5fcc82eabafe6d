import type { Knex, SqlStatement } from '../db';

export interface VersionedTable {
  table: string;
  /** The row's identity (its primary key). */
  key: readonly string[];
  /** A column that, once set, stays set whatever arrives later (a deletion is final). */
  final?: string;
}

/** A record for a read model and the version its producer gave that change of it. */
export interface VersionedRow {
  row: Record<string, Knex.Value>;
  version: number;
}

/**
 * Writes a record into a read model unless the row already holds a newer one. Producers number
 * every change of a record (`version`, one more per change), so events delivered out of order, late
 * RPC answers and redeliveries all end with the newest version, which a timestamp truncated to the
 * second could not tell apart. An equal version is the same change and rewrites the same values.
 */
export async function keepNewest(db: Knex, spec: VersionedTable, row: Record<string, Knex.Value>, version: number): Promise<void> {
  const upsert = keepNewestStatement(spec, [{ row, version }])!;
  await db.raw(upsert.sql, upsert.bindings);
}

/**
 * keepNewest for many records (same columns) as one INSERT, ending as applying them one by one in
 * the given order would: records of one row are first folded into one (the newest version's values,
 * the later of equal versions, the final column kept once set), since one upsert may touch a row
 * only once. Undefined for no records.
 */
export function keepNewestStatement(spec: VersionedTable, records: readonly VersionedRow[]): SqlStatement | undefined {
  const folded = foldByKey(spec, records);
  if (!folded.length) return undefined;
  const columns = [...Object.keys(folded[0]!.row), 'version'];
  const kept = columns.filter((c) => !spec.key.includes(c) && c !== 'version');
  const updates = kept.map((c) =>
    c === spec.final ? `?? = coalesce(d.??, excluded.??)` : `?? = case when excluded.version >= d.version then excluded.?? else d.?? end`,
  );
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return {
    sql: `insert into ?? as d (${columns.map(() => '??').join(', ')}) values ${folded.map(() => tuple).join(', ')}
     on conflict (${spec.key.map(() => '??').join(', ')}) do update set ${[...updates, 'version = greatest(d.version, excluded.version)'].join(', ')}`,
    bindings: [
      spec.table,
      ...columns,
      ...folded.flatMap((r) => [...columns.slice(0, -1).map((c) => r.row[c] ?? null), r.version]),
      ...spec.key,
      ...kept.flatMap((c) => [c, c, c]),
    ],
  };
}

/** One record per key: what applying them in order leaves (see keepNewestStatement). */
function foldByKey(spec: VersionedTable, records: readonly VersionedRow[]): VersionedRow[] {
  const byKey = new Map<string, VersionedRow>();
  for (const next of records) {
    const key = JSON.stringify(spec.key.map((k) => next.row[k]));
    const before = byKey.get(key);
    if (!before) {
      byKey.set(key, next);
      continue;
    }
    const newest = next.version >= before.version ? next : before;
    const row = { ...newest.row };
    if (spec.final) row[spec.final] = before.row[spec.final] ?? next.row[spec.final] ?? null;
    byKey.set(key, { row, version: newest.version });
  }
  return [...byKey.values()];
}
