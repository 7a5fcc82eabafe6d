import { sum, type Dec } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import { isBalanced, type JournalLine } from '../domain/journal';

/**
 * An amount as the journal stores it: as exact as it came (the accounting currency may have three
 * or four decimals), and with at least two, as every amount of a two-decimal currency always read.
 */
export function journalAmount(value: Dec): string {
  return value.decimalPlaces() > 2 ? value.toFixed() : value.toFixed(2);
}

/**
 * Stores a journal entry and its lines, a document's or a cash entry's (payments/payment.repository.ts
 * postCashEntry, which may name a payment instead of an invoice); an unbalanced entry is a bug and
 * never reaches the books.
 */
export async function postEntry(
  trx: Knex.Transaction,
  entry: {
    org_id: number;
    invoice_id: number | null;
    payment_id?: number | null;
    kind: string;
    journalname: string;
    journaldate: string;
    reference: string;
  },
  lines: JournalLine[],
): Promise<number> {
  if (!isBalanced(lines)) throw new Error(`journal entry for ${entry.reference} does not balance`);
  const amount = journalAmount(sum(lines.map((l) => l.debit)));
  const [row] = await trx('journal_entries')
    .insert({ ...entry, amount })
    .returning<Array<{ id: number }>>('id');
  // One row inserted, so exactly one returned.
  const id = (row as { id: number }).id;
  if (lines.length) {
    await trx('journal_lines').insert(
      lines.map((l) => ({
        entry_id: id,
        account: l.account,
        label: l.label,
        debit: journalAmount(l.debit),
        credit: journalAmount(l.credit),
        tax_category: l.tax_category ?? null,
        tax_rate: l.tax_rate?.toFixed() ?? null,
        tax_base: l.tax_base ? journalAmount(l.tax_base) : null,
      })),
    );
  }
  return id;
}
