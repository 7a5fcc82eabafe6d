import type { Knex } from './db';

/**
 * Gapless document numbers per organization and series (INV-, QUO- ...). The counter row stays
 * locked until the caller's transaction ends, so concurrent creates queue up and a rollback gives
 * its number back. Numbers a client supplied by hand are skipped, never reused.
 */
export async function nextDocumentNumber(
  trx: Knex.Transaction,
  orgId: number,
  prefix: string,
  isTaken: (candidate: string) => Promise<boolean>,
  width = 5,
): Promise<string> {
  for (;;) {
    const [row] = await trx('document_sequences')
      .insert({ org_id: orgId, series: prefix, last_value: 1 })
      .onConflict(['org_id', 'series'])
      .merge({ last_value: trx.raw('document_sequences.last_value + 1') })
      .returning<Array<{ last_value: number }>>('last_value');
    const candidate = formatDocumentNumber(prefix, Number((row as { last_value: number }).last_value), width);
    if (!(await isTaken(candidate))) return candidate;
  }
}

export function formatDocumentNumber(prefix: string, value: number, width = 5): string {
  return `${prefix}${String(value).padStart(width, '0')}`;
}

/** True for PostgreSQL's unique_violation, optionally on one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}
