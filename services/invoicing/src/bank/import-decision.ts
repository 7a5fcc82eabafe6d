import type { Dec } from '@bo/kernel';
import { datedBeforeRefusal } from '../domain/dating';
import { automaticMatch, candidatesFor, type MatchContext, type MatchLine, type OpenDocument } from './matching';

/** A stored line of a statement being imported, and the transfer of a payment file its end-to-end id states, if any. */
export interface ImportedLine {
  line: MatchLine;
  /** The line's booking date (`YYYY-MM-DD`), the date of the payment reconciling it makes. */
  date: string;
  transfer?: { invoice_id: number; partner_id: number };
}

/** What becomes of an imported line: reconciled against one document for its whole amount, or marked for a person. */
export type ImportDecision =
  | { kind: 'reconcile'; partner: number; invoice_id: number; amount: Dec; by: 'transfer' | 'reference' }
  | { kind: 'mark'; status: 'suggested' | 'unmatched' };

/**
 * Decides each line of an import in order (pure; docs/bank.md "Import" and "Matching"). With
 * `autoreconcile` (the organization's `bank_autoreconcile`, or the import's own), a debit stating
 * the end-to-end id of a bill in payment pays that bill, and a line whose structured reference names
 * one open document owing at least its amount pays that document; what a line pays is no longer due
 * for the lines after it. A line booked before the document's date pays nothing by itself (dates run
 * forward: such a payment would be refused, and refusing it would refuse the whole import). Every
 * other line is suggested when it has a candidate, else unmatched.
 */
export function decideImport(lines: readonly ImportedLine[], context: MatchContext, autoreconcile: boolean): ImportDecision[] {
  // The documents' dues as the import leaves them, line by line.
  const documents: OpenDocument[] = context.documents.map((d) => ({ ...d }));
  const now: MatchContext = { ...context, documents };
  return lines.map(({ line, date, transfer }) => {
    const money = line.amount.abs();
    const datedAfter = (doc: OpenDocument) =>
      datedBeforeRefusal('booking_date', date, 'a payment', [{ label: doc.invoicenumber, date: doc.date }]) === null;
    if (autoreconcile) {
      const bill = transfer && documents.find((d) => d.id === transfer.invoice_id);
      // A bill paid meanwhile (in part or in full) is left to a person: the line is suggested, not forced.
      if (transfer && bill && bill.due.gte(money) && datedAfter(bill)) {
        bill.due = bill.due.minus(money);
        return { kind: 'reconcile', partner: transfer.partner_id, invoice_id: bill.id, amount: money, by: 'transfer' };
      }
      const doc = automaticMatch(line, now);
      if (doc && datedAfter(doc)) {
        doc.due = doc.due.minus(money);
        return { kind: 'reconcile', partner: doc.partner_id, invoice_id: doc.id, amount: money, by: 'reference' };
      }
    }
    return { kind: 'mark', status: candidatesFor(line, now, 1).length ? 'suggested' : 'unmatched' };
  });
}
