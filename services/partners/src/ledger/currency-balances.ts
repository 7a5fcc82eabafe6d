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
 * A partner's balances per currency weighed in its own currency (else the organization's accounting
 * currency), each by the kernel's one rule (weighIn) at the rate its documents were posted at: what
 * they came to in the accounting currency over their totals. A currency that cannot be weighed (no
 * document of it posted at a known rate, or an organization with no accounting currency) counts as it
 * is, as the ledger always counted it; `balances` keeps every currency apart in any case.
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
  const weigh = (pick: (r: CurrencyBalanceRow) => DecimalLike): Dec =>
    rows.reduce((acc, r) => {
      const amount = dec(pick(r));
      const rate = r.currency === '' || target === null || accounting === null ? null : rateOf(r.currency);
      const targetRate = target === null ? null : rateOf(target);
      if (target === null || accounting === null || r.currency === '' || r.currency === target || rate === null || targetRate === null)
        return acc.plus(amount);
      return acc.plus(weighIn(target, accounting, targetRate, [{ money: Money.of(amount, r.currency), rate }]).amount);
    }, dec(0));
  return {
    currency: target,
    balance: weigh((r) => r.balance),
    receivable: weigh((r) => r.receivable),
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
