import type { Knex } from '../db';

export interface VersionedTable {
  table: string;
  /** The row's identity (its primary key). */
  key: readonly string[];
  /** A column that, once set, stays set whatever arrives later (a deletion is final). */
  final?: string;
}

/**
 * Writes a record into a read model unless the row already holds a newer one. Producers number
 * every change of a record (`version`, one more per change), so events delivered out of order, late
 * RPC answers and redeliveries all end with the newest version, which a timestamp truncated to the
 * second could not tell apart. An equal version is the same change and rewrites the same values.
 */
export async function keepNewest(db: Knex, spec: VersionedTable, row: Record<string, Knex.Value>, version: number): Promise<void> {
  const columns = [...Object.keys(row), 'version'];
  const values = [...Object.values(row), version];
  const updates = columns
    .filter((c) => !spec.key.includes(c) && c !== 'version')
    .map((c) =>
      c === spec.final ? `?? = coalesce(d.??, excluded.??)` : `?? = case when excluded.version >= d.version then excluded.?? else d.?? end`,
    );
  const updateBindings = columns.filter((c) => !spec.key.includes(c) && c !== 'version').flatMap((c) => [c, c, c]);
  await db.raw(
    `insert into ?? as d (${columns.map(() => '??').join(', ')}) values (${columns.map(() => '?').join(', ')})
     on conflict (${spec.key.map(() => '??').join(', ')}) do update set ${[...updates, 'version = greatest(d.version, excluded.version)'].join(', ')}`,
    [spec.table, ...columns, ...values, ...spec.key, ...updateBindings],
  );
}
