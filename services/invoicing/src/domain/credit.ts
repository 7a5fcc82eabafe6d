import type { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/runtime';

/**
 * How a posted document moves what the partner owes (docs/design.md section 4), exactly as the partners
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
  /** Converted quotations' invoices not validated or cancelled yet, this document excepted. */
  committed: Dec;
  /** balance + committed + this document's total: what is weighed against the limit. */
  exposure: Dec;
  available: Dec;
}

/**
 * A sale fits when its exposure, balance + committed (other documents) + total, is within the credit
 * limit (docs/design.md "credit exposure"); a limit of 0 means no limit, here as everywhere. The balance
 * is the larger of the partners service's (which follows events, so it lags) and this service's
 * own: the two agree once every event is applied, and taking the larger means neither a posting
 * the partners ledger has not seen yet nor one made outside invoicing lets a sale through.
 */
export function decideCredit(input: {
  creditLimit: DecimalLike;
  partnersBalance: DecimalLike;
  ownBalance: DecimalLike;
  committed?: DecimalLike;
  total: DecimalLike;
}): CreditDecision {
  const limit = dec(input.creditLimit);
  const balance = larger(dec(input.partnersBalance), dec(input.ownBalance));
  const committed = dec(input.committed ?? 0);
  const exposure = balance.plus(committed).plus(dec(input.total));
  const available = limit.minus(balance);
  const allowed = !hasCreditLimit(limit) || exposure.lessThanOrEqualTo(limit);
  return { allowed, balance, committed, exposure, available };
}

/** The one meaning of a zero limit: the partner has no credit limit (nothing is refused). */
export function hasCreditLimit(limit: DecimalLike): boolean {
  return dec(limit).greaterThan(0);
}

function larger(a: Dec, b: Dec): Dec {
  return a.greaterThan(b) ? a : b;
}
