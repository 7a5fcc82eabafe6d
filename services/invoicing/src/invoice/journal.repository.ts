import { round2, sum } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import { isBalanced, type JournalLine } from '../domain/journal';

/** Stores a journal entry and its lines; an unbalanced entry is a bug and never reaches the books. */
export async function postEntry(
  trx: Knex.Transaction,
  entry: { org_id: number; invoice_id: number; kind: 'invoice' | 'payment'; journalname: string; journaldate: string; reference: string },
  lines: JournalLine[],
): Promise<number> {
  if (!isBalanced(lines)) throw new Error(`journal entry for ${entry.reference} does not balance`);
  const amount = round2(sum(lines.map((l) => l.debit))).toFixed(2);
  const [row] = await trx('journal_entries')
    .insert({ ...entry, amount })
    .returning<Array<{ id: number }>>('id');
  // One row inserted, so exactly one returned.
  const id = (row as { id: number }).id;
  if (lines.length) {
    await trx('journal_lines').insert(
      lines.map((l) => ({ entry_id: id, account: l.account, label: l.label, debit: l.debit.toFixed(2), credit: l.credit.toFixed(2) })),
    );
  }
  return id;
}
