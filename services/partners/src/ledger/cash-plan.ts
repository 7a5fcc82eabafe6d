import { invoicing, type EventEnvelope } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { journalEffects, type LedgerEntry, type LedgerStep } from './ledger-plan';

type Direction = invoicing.PaymentDirection;
type Side = (typeof invoicing.ledgerSides)[number];

/**
 * What cash does to the balance (what the partner owes): money in from the partner takes it down,
 * money out to the partner puts it up. The receivable moves with it only on the customer side.
 */
function cashEffects(moneyFromPartner: boolean, side: Side, amount: string): Pick<LedgerEntry, 'balance_effect' | 'receivable_effect'> {
  const balance = moneyFromPartner ? dec(amount).negated() : dec(amount);
  return { balance_effect: balance.toFixed(), receivable_effect: side === 'customer' ? balance.toFixed() : '0' };
}

const fromPartner = (direction: Direction) => direction === 'in';

interface AllocationData {
  allocation_id: number;
  invoice_id: number;
  invoicenumber: string;
  amount: number;
  invoicetype?: string;
  /** Its own entry's trade move (a realized exchange difference), when it posted one and the event tells it. */
  trade_delta?: number;
}

/**
 * An allocation as a ledger row: it settles its document (its `paid`) and moves no face balance; one
 * posted by an entry of its own moves the accounting-currency balance by what that entry realized on
 * the trade accounts (its `trade_delta`). Its reversal by a void moves nothing: the void's own row
 * carries the whole of the void entry's move.
 */
function allocationRows(
  partnerId: number,
  date: string,
  allocations: readonly AllocationData[],
  source: 'allocation' | 'allocation_void',
  currency: string | null,
  creditNote?: { id: number; invoicenumber: string },
): LedgerEntry[] {
  const sign = source === 'allocation' ? 1 : -1;
  const rows = allocations.map((a): LedgerEntry => ({
    partner_id: partnerId,
    type: source,
    source,
    source_id: a.allocation_id,
    invoice_id: a.invoice_id,
    document_number: a.invoicenumber,
    date,
    amount: dec(a.amount).times(sign).toFixed(),
    balance_effect: '0',
    receivable_effect: '0',
    currency,
    accounting_amount: null,
    // Allocations settle the customer side's receivable or the vendor side's payable, as their documents.
    ...(source === 'allocation' ? journalEffects(a.trade_delta, a.invoicetype === 'invoiceout') : journalEffects(undefined, false)),
  }));
  // A credit note's credit used: its own `paid` grows by what it settled.
  const used = creditNote
    ? allocations.map((a): LedgerEntry => ({
        partner_id: partnerId,
        type: 'allocation',
        source: 'credit_applied',
        source_id: a.allocation_id,
        invoice_id: creditNote.id,
        document_number: creditNote.invoicenumber,
        date,
        amount: String(a.amount),
        balance_effect: '0',
        receivable_effect: '0',
        currency,
        accounting_amount: null,
        ...journalEffects(undefined, false),
      }))
    : [];
  return [...rows, ...used];
}

/**
 * The ledger's reading of the cash events (docs/partners.md): a payment, a refund, a void and a
 * write-off post one row each that moves the balance, keyed by their own id so a redelivery posts
 * nothing; allocations post rows that move no balance and settle their documents. Undefined for
 * any other event.
 */
export function cashStep(event: EventEnvelope): LedgerStep | undefined {
  switch (event.type) {
    case invoicing.paymentCreated.type: {
      const d = invoicing.paymentCreated.data.parse(event.data);
      const date = d.payment_date.slice(0, 10);
      return {
        event,
        posts: {
          partner_id: d.partner_id,
          type: 'payment',
          source: 'payment',
          source_id: d.payment_id,
          invoice_id: 0,
          document_number: `PAY-${d.payment_id}`,
          date,
          amount: String(d.amount),
          ...cashEffects(fromPartner(d.direction), d.side, String(d.amount)),
          currency: d.currency ?? null,
          accounting_amount: null,
          ...journalEffects(d.trade_delta, d.side === 'customer'),
        },
        also: allocationRows(d.partner_id, date, d.allocations, 'allocation', d.currency ?? null),
      };
    }
    case invoicing.paymentAllocated.type: {
      const d = invoicing.paymentAllocated.data.parse(event.data);
      const date = d.allocation_date.slice(0, 10);
      const note =
        d.credit_note_id === null
          ? undefined
          : { id: d.credit_note_id, invoicenumber: d.credit_note_number ?? `credit note ${d.credit_note_id}` };
      return { event, also: allocationRows(d.partner_id, date, d.allocations, 'allocation', d.currency ?? null, note) };
    }
    case invoicing.paymentRefunded.type: {
      const d = invoicing.paymentRefunded.data.parse(event.data);
      return {
        event,
        posts: {
          partner_id: d.partner_id,
          type: 'refund',
          source: 'refund',
          source_id: d.refund_id,
          // A credit note's refund settles it (its `paid`); a payment's belongs to no document.
          invoice_id: d.credit_note_id ?? 0,
          document_number: d.payment_id !== null ? `PAY-${d.payment_id}` : `credit note ${d.credit_note_id}`,
          date: d.refund_date.slice(0, 10),
          amount: String(d.amount),
          ...cashEffects(fromPartner(d.direction), d.side, String(d.amount)),
          currency: d.currency ?? null,
          accounting_amount: null,
          ...journalEffects(d.trade_delta, d.side === 'customer'),
        },
      };
    }
    case invoicing.paymentVoided.type: {
      const d = invoicing.paymentVoided.data.parse(event.data);
      const date = d.void_date.slice(0, 10);
      return {
        event,
        posts: {
          partner_id: d.partner_id,
          type: 'payment_void',
          source: 'payment_void',
          source_id: d.payment_id,
          invoice_id: 0,
          document_number: `PAY-${d.payment_id}`,
          date,
          amount: String(d.amount),
          // The payment's effect undone: money in voided puts the balance back up.
          ...cashEffects(!fromPartner(d.direction), d.side, String(d.amount)),
          currency: d.currency ?? null,
          accounting_amount: null,
          ...journalEffects(d.trade_delta, d.side === 'customer'),
        },
        also: allocationRows(d.partner_id, date, d.allocations, 'allocation_void', d.currency ?? null),
      };
    }
    case invoicing.invoiceWrittenOff.type: {
      const d = invoicing.invoiceWrittenOff.data.parse(event.data);
      const amount = String(d.amount);
      return {
        event,
        posts: {
          partner_id: d.partner_id,
          type: 'write_off',
          source: 'write_off',
          source_id: d.invoice_id,
          invoice_id: d.invoice_id,
          document_number: d.invoicenumber,
          date: d.write_off_date.slice(0, 10),
          amount,
          // What the customer owed and never will pay leaves both.
          balance_effect: dec(amount).negated().toFixed(),
          receivable_effect: dec(amount).times(-invoicing.receivableSign[d.invoicetype]).toFixed(),
          currency: d.currency ?? null,
          accounting_amount: null,
          ...journalEffects(d.trade_delta, invoicing.receivableSign[d.invoicetype] !== 0),
        },
      };
    }
    default:
      return undefined;
  }
}
