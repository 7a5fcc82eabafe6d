import { invoicing } from '@bo/contracts';
import { dec, sum, type Dec, type DecimalLike } from '@bo/kernel';

/**
 * What the partner owes as a customer by this service's own posted documents: what is still due on
 * each, signed by its effect on the receivable (a customer invoice adds, a credit note to the
 * customer takes off; vendor bills and vendor credits neither add nor take off).
 */
export function ownReceivable(dueByType: Array<{ invoicetype: invoicing.InvoiceType; due: DecimalLike }>): Dec {
  return sum(dueByType.map((r) => dec(r.due).times(invoicing.receivableSign[r.invoicetype])));
}

/** A document as the credit check sees it. */
export interface ExposureDocument {
  invoicetype: invoicing.InvoiceType;
  invoicestatus: invoicing.InvoiceStatus;
  /** Made by a quotation's conversion. */
  converted: boolean;
  total: DecimalLike;
  due: DecimalLike;
}

/**
 * What the partner will owe as a customer: the receivable of its posted documents, plus what is
 * committed, i.e. drafts and proformas made from converted quotations that become customer invoices
 * (docs/design.md "credit exposure"). A credit note or a vendor document in the making adds nothing.
 */
export function customerExposure(documents: readonly ExposureDocument[]): { receivable: Dec; committed: Dec } {
  const posted = documents.filter((d) => d.invoicestatus === 'open');
  const committed = documents.filter(
    (d) => d.converted && (d.invoicestatus === 'draft' || d.invoicestatus === 'proforma') && invoicing.commitsCredit(d.invoicetype),
  );
  return {
    receivable: ownReceivable(posted.map((d) => ({ invoicetype: d.invoicetype, due: d.due }))),
    committed: sum(committed.map((d) => dec(d.total))),
  };
}

export interface CreditDecision {
  allowed: boolean;
  /** What the partner owes as a customer, as the sale was checked against it (the message calls it its balance). */
  balance: Dec;
  /** Converted quotations' customer invoices not validated or cancelled yet, this document excepted. */
  committed: Dec;
  /** balance + committed + this document's total: what is weighed against the limit. */
  exposure: Dec;
  available: Dec;
}

/**
 * A sale fits when its exposure, balance + committed (other documents) + total, is within the credit
 * limit (docs/design.md "credit exposure"); a limit of 0 means no limit, here as everywhere. The balance
 * is what the partner owes as a customer (its receivable: vendor documents count nothing), the
 * larger of the partners service's (which follows events, so it lags) and this service's own: the
 * two agree once every event is applied, and taking the larger means neither a posting the partners
 * ledger has not seen yet nor one made outside invoicing lets a sale through.
 */
export function decideCredit(input: {
  creditLimit: DecimalLike;
  partnersReceivable: DecimalLike;
  ownReceivable: DecimalLike;
  committed?: DecimalLike;
  total: DecimalLike;
}): CreditDecision {
  const limit = dec(input.creditLimit);
  const balance = larger(dec(input.partnersReceivable), dec(input.ownReceivable));
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
