import { dec, Money, toNumber, weighIn, type Dec, type DecimalLike } from '@bo/kernel';

/** A partner's ledger in one currency (partner_balances): '' when its documents had none. */
export interface CurrencyBalanceRow {
  currency: string;
  balance: DecimalLike;
  receivable: DecimalLike;
  committed: DecimalLike;
  /** Totals of its documents posted with their worth in the accounting currency, and that worth. */
  documents_total: DecimalLike;
  documents_accounting: DecimalLike;
  /** What the journal moved in the accounting currency for the rows whose events told it, and their face amounts (absent: none told). */
  booked_balance?: DecimalLike;
  booked_receivable?: DecimalLike;
  booked_face_balance?: DecimalLike;
  booked_face_receivable?: DecimalLike;
}

export interface WeighedBalance {
  /** The currency the figures are weighed in: the partner's, else the organization's (null: neither is known). */
  currency: string | null;
  balance: Dec;
  receivable: Dec;
  committed: Dec;
  balances: Array<{ currency: string | null; balance: number; receivable: number; committed: number }>;
}

/**
 * A partner's balances per currency in its own currency (else the organization's accounting
 * currency). The balance and receivable are the journal's (docs/partners.md "Currencies"): what each
 * currency's rows moved the trade accounts by in the accounting currency, as their events told it
 * (`booked_*`), so the view equals the journal's trade lines to the minor unit. What rows posted from
 * events that did not tell it leave (`balance` less `booked_face_balance`), and the committed amount
 * (in no journal), are weighed by the kernel's one rule (weighIn) at the rate the currency's documents
 * were posted at: what they came to in the accounting currency over their totals. A currency that
 * cannot be weighed (no document of it posted at a known rate, or an organization with no accounting
 * currency) counts as it is, as the ledger always counted it. In a partner currency other than the
 * accounting one, that currency counts at its face amount and the others' accounting worth is
 * weighed into it at its documents' rate. `balances` keeps every currency apart in any case.
 */
export function weighBalances(
  rows: readonly CurrencyBalanceRow[],
  partnerCurrency: string | null,
  accounting: string | null,
): WeighedBalance {
  const target = partnerCurrency ?? accounting;
  const rateOf = (currency: string): Dec | null => {
    if (currency === accounting) return dec(1);
    const row = rows.find((r) => r.currency === currency);
    return row && !dec(row.documents_total).isZero() ? dec(row.documents_accounting).div(dec(row.documents_total)) : null;
  };
  const weigh = (
    pick: (r: CurrencyBalanceRow) => DecimalLike,
    booked: (r: CurrencyBalanceRow) => { accounting: DecimalLike; face: DecimalLike } = () => ({ accounting: 0, face: 0 }),
  ): Dec =>
    rows.reduce((acc, r) => {
      const amount = dec(pick(r));
      const told = booked(r);
      // Nothing to weigh (a zero a rate of 0 could not convert).
      if (amount.isZero() && dec(told.accounting).isZero() && dec(told.face).isZero()) return acc;
      const rate = r.currency === '' || target === null || accounting === null ? null : rateOf(r.currency);
      const targetRate = target === null ? null : rateOf(target);
      if (target === null || accounting === null || r.currency === '' || (r.currency === target && target !== accounting))
        return acc.plus(amount);
      if (dec(told.accounting).isZero() && dec(told.face).isZero()) {
        // Nothing told: weighed as it always was; documents worth nothing in the accounting currency weigh nothing.
        if (r.currency === target || rate === null || targetRate === null || targetRate.isZero()) return acc.plus(amount);
        if (rate.isZero()) return acc;
        return acc.plus(weighIn(target, accounting, targetRate, [{ money: Money.of(amount, r.currency), rate }]).amount);
      }
      // The journal's figure for what was told, the untold rest at the currency's documents' rate.
      const untold = amount.minus(dec(told.face));
      const untoldWorth =
        untold.isZero() || rate?.isZero() ? dec(0) : rate === null ? null : Money.of(untold, r.currency).convert(rate, accounting).amount;
      if (untoldWorth === null) return acc.plus(amount);
      const worth = dec(told.accounting).plus(untoldWorth);
      if (target === accounting) return acc.plus(worth);
      if (targetRate === null || targetRate.isZero()) return acc.plus(amount);
      return acc.plus(weighIn(target, accounting, targetRate, [{ money: Money.of(worth, accounting), rate: 1 }]).amount);
    }, dec(0));
  return {
    currency: target,
    balance: weigh(
      (r) => r.balance,
      (r) => ({ accounting: r.booked_balance ?? 0, face: r.booked_face_balance ?? 0 }),
    ),
    receivable: weigh(
      (r) => r.receivable,
      (r) => ({ accounting: r.booked_receivable ?? 0, face: r.booked_face_receivable ?? 0 }),
    ),
    committed: weigh((r) => r.committed),
    balances: [...rows]
      .sort((a, b) => a.currency.localeCompare(b.currency))
      .map((r) => ({
        currency: r.currency || null,
        balance: toNumber(r.balance),
        receivable: toNumber(r.receivable),
        committed: toNumber(r.committed),
      })),
  };
}

/** One partner's balances per currency, with its currency and its organization's accounting currency. */
export interface PartnerBalances {
  partner_id: number;
  currency: string | null;
  accounting: string | null;
  rows: CurrencyBalanceRow[];
}

/** What a partner's own row keeps (`partners.balance`, `receivable`, `committed`): exact decimal text. */
export interface RecordFigures {
  partner_id: number;
  balance: string;
  receivable: string;
  committed: string;
}

/**
 * The figures a partner's record carries, which the list and every partner record answer: its
 * balances weighed as the balance view weighs them (weighBalances), never the face amounts of
 * different currencies added, so a EUR customer owing a 100 USD invoice booked at 0.90 has `balance`
 * 90 in the list, the balance view and the journal alike.
 */
export function decideRecordFigures(partners: readonly PartnerBalances[]): RecordFigures[] {
  return partners.map((p) => {
    const weighed = weighBalances(p.rows, p.currency, p.accounting);
    return {
      partner_id: p.partner_id,
      balance: weighed.balance.toFixed(),
      receivable: weighed.receivable.toFixed(),
      committed: weighed.committed.toFixed(),
    };
  });
}
