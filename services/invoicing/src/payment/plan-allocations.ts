import { dec, type DecimalLike } from '@bo/kernel';
import { allocationLines, statusAfterSettlement, unconverted, valueOfStep, type BookedValue } from '../domain/cash';
import { accountsFor, type JournalLine } from '../domain/journal';
import type { InvoiceRow } from '../invoice/invoice.record';
import { journalAmount, type EntryHeader } from '../invoice/journal.repository';
import type { AllocationRow } from './payment.record';
import { documentStep } from './payment-values';

/** An allocation row as planAllocations plans it, before the ids its store gives it. */
export type PlannedAllocation = Pick<
  AllocationRow,
  'org_id' | 'payment_id' | 'credit_note_id' | 'invoice_id' | 'amount' | 'allocation_date' | 'journal_entry_id'
> & { operation_key: string | null; seq: number; settles_credited: boolean };

/** One allocation planned: its row, and the entry that posts it with its lines (none when its source's entry posted it). */
export interface AllocationStep {
  row: PlannedAllocation;
  /** Its own entry, when its lines move anything; null: posted by its source's entry (`postedBy`), or worth nothing. */
  entry: EntryHeader | null;
  /** Its lines, when its source's credit sits on the books (`source.account`); null when it does not. */
  lines: JournalLine[] | null;
}

export interface AllocationSource {
  payment_id: number | null;
  credit_note_id: number | null;
  /**
   * The trade account the credit sits on, `value` what it is worth and how much of it is used up
   * already; null when the payment's own entry (`postedBy`) posted each part to its document's account.
   */
  account: string | null;
  postedBy?: number;
  value?: { item: BookedValue; used: DecimalLike };
  reference: string;
}

/**
 * Allocations already judged (domain/cash.ts allocationRefusals), planned in request order against
 * the documents as each allocation leaves them (a second allocation to the same document steps on
 * from the first's paid amount): one row each under the operation's natural key (`seq`, its place in
 * the request), and, from a source whose credit sits on the books (`source.account`), an entry of its
 * own (the credit used at its source's worth, the document cleared at its own, the realized exchange
 * difference). Pure: bookAllocations stores it in a caller's transaction, decideAllocation under the
 * ids its load drew. `documents` must hold every document requested; the plan answers each one
 * settled as the allocations leave it (paid amount and status moved; its times and version are the
 * store's).
 */
export function planAllocations(args: {
  orgId: number;
  source: AllocationSource;
  documents: ReadonlyMap<number, InvoiceRow>;
  /** What each document booked in the accounting currency (`bookedDocuments`, `bookedValue`). */
  booked: ReadonlyMap<number, BookedValue>;
  requested: ReadonlyArray<{ invoice_id: number; amount: DecimalLike }>;
  date: string;
  journal: string;
  operationKey: string | null | undefined;
  /** A credit note's settlement of the invoice it credits, made by its validation: at most one per note. */
  settlesCredited?: boolean;
}): { steps: AllocationStep[]; settled: Map<number, InvoiceRow> } {
  let used = dec(args.source.value?.used ?? 0);
  const settled = new Map<number, InvoiceRow>();
  const steps = args.requested.map((a, seq): AllocationStep => {
    const doc = (settled.get(a.invoice_id) ?? args.documents.get(a.invoice_id)) as InvoiceRow;
    const amount = journalAmount(dec(a.amount));
    const settles = doc.invoicetype === 'invoicein' ? 'invoicein' : 'invoiceout';
    let lines: JournalLine[] = [];
    if (args.source.account !== null) {
      const sourceItem = args.source.value?.item ?? unconverted(amount);
      const from = { account: args.source.account, value: valueOfStep(sourceItem, used, used.plus(amount)) };
      used = used.plus(amount);
      const to = { account: accountsFor(doc.invoicetype, doc).trade, value: documentStep(doc, args.booked, amount) };
      lines = allocationLines(settles, from, to);
    }
    const paid = dec(doc.amount_paid).plus(dec(amount));
    settled.set(doc.id, { ...doc, amount_paid: journalAmount(paid), invoicestatus: statusAfterSettlement(doc, paid) });
    return {
      row: {
        org_id: args.orgId,
        payment_id: args.source.payment_id,
        credit_note_id: args.source.credit_note_id,
        invoice_id: doc.id,
        amount,
        allocation_date: args.date,
        // Posted by its own entry (drawn with it), else by the source's.
        journal_entry_id: lines.length ? null : (args.source.postedBy ?? null),
        operation_key: args.operationKey ?? null,
        seq,
        settles_credited: !!args.settlesCredited,
      },
      entry: lines.length
        ? {
            org_id: args.orgId,
            invoice_id: doc.id,
            payment_id: args.source.payment_id,
            kind: 'allocation',
            journalname: args.journal,
            journaldate: args.date,
            reference: `${args.source.reference} → ${doc.invoicenumber}`.slice(0, 64),
          }
        : null,
      lines: args.source.account !== null ? lines : null,
    };
  });
  return { steps, settled };
}
