import type { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/runtime';

/**
 * How a posted document moves what the partner owes (DESIGN.md section 4), exactly as the partners
 * ledger applies the events: a payment moves the balance back by the amount paid.
 */
export const BALANCE_SIGN: Record<invoicing.InvoiceType, 1 | -1> = { invoiceout: 1, creditout: -1, invoicein: -1, creditin: 1 };

/** What the partner owes by this service's own posted documents: the signed sum of what is still due on each. */
export function ownBalance(dueByType: Array<{ invoicetype: invoicing.InvoiceType; due: DecimalLike }>): Dec {
  return sum(dueByType.map((r) => dec(r.due).times(BALANCE_SIGN[r.invoicetype])));
}

export interface CreditDecision {
  allowed: boolean;
  /** The balance the sale was checked against. */
  balance: Dec;
  available: Dec;
}

/**
 * A sale fits when balance + total <= credit limit; a limit of 0 means no limit. The balance is the
 * larger of the partners service's (which follows events, so it lags) and this service's own: the
 * two agree once every event is applied, and taking the larger means neither a posting the partners
 * ledger has not seen yet nor one made outside invoicing lets a sale through.
 */
export function decideCredit(input: { creditLimit: DecimalLike; partnersBalance: DecimalLike; ownBalance: DecimalLike; total: DecimalLike }): CreditDecision {
  const limit = dec(input.creditLimit);
  const balance = larger(dec(input.partnersBalance), dec(input.ownBalance));
  const available = limit.minus(balance);
  const allowed = !limit.greaterThan(0) || balance.plus(dec(input.total)).lessThanOrEqualTo(limit);
  return { allowed, balance, available };
}

function larger(a: Dec, b: Dec): Dec {
  return a.greaterThan(b) ? a : b;
}
