import type { invoicing } from '@bo/contracts';
import { dec, sum, toNumber, type Dec } from '@bo/kernel';
import { daysBetween } from '../domain/recurrence';
import type { Item, ItemKey, Ledger, Movement, Side } from './ledger';

export function agingBucket(daysPastDue: number): invoicing.AgingBucket {
  if (daysPastDue <= 0) return 'current';
  if (daysPastDue <= 30) return '1_30';
  if (daysPastDue <= 60) return '31_60';
  if (daysPastDue <= 90) return '61_90';
  return 'over_90';
}

type Figures = Record<invoicing.AgingBucket | 'unallocated_credit' | 'total', Dec>;
const zeroFigures = (): Figures => ({
  current: dec(0),
  '1_30': dec(0),
  '31_60': dec(0),
  '61_90': dec(0),
  over_90: dec(0),
  unallocated_credit: dec(0),
  total: dec(0),
});
const figuresOut = (f: Figures) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, toNumber(v)])) as Record<keyof Figures, number>;

/** ISO dates and item keys' letters compare by code unit: `localeCompare` asks ICU, many times slower, for the same order. */
const byCode = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byKey = (a: ItemKey, b: ItemKey) => byCode(a.charAt(0), b.charAt(0)) || Number(a.slice(1)) - Number(b.slice(1));

/**
 * Aged balances of one side as of a day: per partner (by id) and in total, the documents that raise
 * the balance in buckets by days past due (`invoicedue`, else the document's date), and the credit
 * (payments and credit notes neither allocated nor refunded) apart; `total` = Σ buckets − credit =
 * the partner's trade lines in the journal up to that day. Each open amount in the accounting
 * currency is the ledger's: what the item booked less the worth of what settled it.
 */
export function agedBalances(
  ledger: Ledger,
  side: Side,
  asOf: string,
  names: ReadonlyMap<number, string>,
): { partners: invoicing.AgedPartnerRow[]; totals: Record<keyof Figures, number> } {
  const open = ledger.openOn(asOf);
  const rows = new Map<
    number,
    { figures: Figures; documents: invoicing.AgedPartnerRow['documents']; credits: invoicing.AgedPartnerRow['credits'] }
  >();
  const totals = zeroFigures();
  for (const key of [...open.keys()].sort(byKey)) {
    const { own, accounting } = open.get(key) as { own: Dec; accounting: Dec };
    const item = ledger.items.get(key) as Item;
    if (item.side !== side || (own.isZero() && accounting.isZero())) continue;
    const row = rows.get(item.partner_id) ?? { figures: zeroFigures(), documents: [], credits: [] };
    rows.set(item.partner_id, row);
    const doc = item.document;
    if (doc && item.sign === 1) {
      const due = doc.invoicedue ?? doc.date;
      const days = daysBetween(due, asOf);
      const bucket = agingBucket(days);
      for (const f of [row.figures, totals]) {
        f[bucket] = f[bucket].plus(accounting);
        f.total = f.total.plus(accounting);
      }
      row.documents.push({
        invoice_id: doc.id,
        invoicenumber: doc.invoicenumber,
        date: doc.date,
        due_date: due,
        days_past_due: days,
        bucket,
        currency: doc.currency,
        open_amount_currency: toNumber(own),
        open_amount: toNumber(accounting),
      });
    } else {
      // Credit: what lowers the balance, so a +1 item here (cash paid out, never allocated) counts negative.
      const credit = item.sign === -1 ? accounting : accounting.neg();
      for (const f of [row.figures, totals]) {
        f.unallocated_credit = f.unallocated_credit.plus(credit);
        f.total = f.total.minus(credit);
      }
      row.credits.push({
        source: item.kind === 'payment' ? 'payment' : 'credit_note',
        payment_id: item.kind === 'payment' ? item.id : null,
        credit_note_id: item.kind === 'document' ? item.id : null,
        reference: item.document?.invoicenumber ?? item.payment?.reference ?? `PAY-${item.id}`,
        date: item.date,
        currency: item.currency,
        unallocated_currency: toNumber(item.sign === -1 ? own : own.neg()),
        unallocated: toNumber(credit),
      });
    }
  }
  const partners = [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([partner, r]) => ({
      partner,
      partnername: names.get(partner) ?? null,
      ...figuresOut(r.figures),
      documents: r.documents,
      credits: r.credits,
    }));
  return { partners, totals: figuresOut(totals) };
}

/** Order within a day: documents, payments, allocations, refunds, voids, write-offs; a realized difference right after its cause. */
const RANK: Record<Movement['kind'], number> = {
  invoice: 0,
  credit_note: 0,
  payment: 1,
  allocation: 2,
  refund: 3,
  void: 4,
  write_off: 5,
};

function itemLabel(item: Item): string {
  return item.document?.invoicenumber ?? `PAY-${item.id}${item.payment?.reference ? ` ${item.payment.reference}` : ''}`;
}

/**
 * A statement of one side of one partner's account over a period: the balance at the end of the day
 * before `dateFrom`, every movement dated in the period in order with the running balance, and the
 * balance at the end of `dateTo` (its aged receivables' or payables' `total` that day, the journal's
 * trade lines of the partner). The ledger may hold only the items that can be open on the day before
 * the period (history.ts `openOn`): every movement of the period is among their postings. An allocation moves no balance by itself (it matches credit against a
 * document of the same partner) and is listed with the amount applied; what cash realizes in the
 * accounting currency (worth more or less than what it cleared) is an `exchange_difference` line of
 * its own, right after it.
 */
export function statementOf(
  ledger: Ledger,
  partner: number,
  side: Side,
  dateFrom: string,
  dateTo: string,
  accountingCurrency: string | null,
): { opening_balance: number; lines: invoicing.StatementLine[]; closing_balance: number } {
  const mine = ledger.movements
    .filter((m) => m.partner_id === partner && m.side === side)
    .sort((a, b) => byCode(a.date, b.date) || RANK[a.kind] - RANK[b.kind] || a.seq - b.seq || a.id - b.id);
  // What the partner's items on this side stood at: the sum of their changes before the period (a
  // history of the items open by then, history.ts `openOn`, holds every item that adds anything).
  const opening = sum(
    ledger.changes
      .filter((c) => c.date < dateFrom)
      .map((c) => ({ c, item: ledger.items.get(c.key) as Item }))
      .filter(({ item }) => item.partner_id === partner && item.side === side)
      .map(({ c, item }) => c.accounting.times(item.sign)),
  );
  let balance = opening;
  const lines: invoicing.StatementLine[] = [];
  const push = (line: Omit<invoicing.StatementLine, 'debit' | 'credit' | 'balance'>, delta: Dec) => {
    balance = balance.plus(delta);
    const raised = toNumber(delta.greaterThan(0) ? delta : dec(0));
    const lowered = toNumber(delta.lessThan(0) ? delta.neg() : dec(0));
    // The trade account's columns: a receivable rises by debits, a payable by credits.
    const [debit, credit] = side === 'customer' ? [raised, lowered] : [lowered, raised];
    lines.push({ ...line, debit, credit, balance: toNumber(balance) });
  };
  for (const m of mine) {
    if (m.date < dateFrom || m.date > dateTo) continue;
    const item = m.item;
    const reference = m.target ? `${itemLabel(item)} → ${itemLabel(m.target)}` : itemLabel(item);
    const ids = m.target
      ? { invoice_id: m.target.id, payment_id: item.payment?.id ?? null, credit_note_id: item.document ? item.id : null }
      : {
          invoice_id: item.document && item.sign === 1 ? item.id : null,
          payment_id: item.kind === 'payment' ? item.id : null,
          credit_note_id: item.document && item.sign === -1 ? item.id : null,
        };
    push(
      {
        date: m.date,
        kind: m.kind,
        reference,
        ...ids,
        currency: m.target?.currency ?? item.currency,
        amount_currency: toNumber(m.amount_currency),
      },
      m.cash,
    );
    if (!m.realized.isZero()) {
      push(
        {
          date: m.date,
          kind: 'exchange_difference',
          reference,
          ...ids,
          currency: accountingCurrency,
          amount_currency: toNumber(m.realized.abs()),
        },
        m.realized,
      );
    }
  }
  return { opening_balance: toNumber(opening), lines, closing_balance: toNumber(balance) };
}
