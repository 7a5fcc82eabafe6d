import { invoicing } from '@bo/contracts';
import { dec, Money, sum, weighIn, type Dec, type DecimalLike } from '@bo/kernel';

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

/** An amount of one currency as the credit check weighs it: with its rate to the accounting currency (null: none known). */
export interface CreditAmount {
  money: Money;
  rate: DecimalLike | null;
}

/** How the partner's figures are weighed: in the currency of its credit limit, at each document's rate to the accounting currency. */
export interface CreditWeighing<W extends string> {
  creditLimit: Money<W>;
  accounting: string;
  /** Units of the accounting currency per one unit of the limit's currency (1, or unused, when it is the accounting currency). */
  limitRate: DecimalLike | null;
  /** The rate an amount of a currency takes when no document of this service carries it (the organization's table). */
  rateOf: (currency: string) => DecimalLike | null;
}

export interface CreditDecision<W extends string = string> {
  allowed: boolean;
  /** What the partner owes as a customer, as the sale was checked against it (the message calls it its balance). */
  balance: Money<W>;
  /** Converted quotations' customer invoices not validated or cancelled yet, this document excepted. */
  committed: Money<W>;
  /** This document's total, weighed. */
  document: Money<W>;
  /** balance + committed + this document's total: what is weighed against the limit. */
  exposure: Money<W>;
  available: Money<W>;
  /** What the exposure passes the limit by (zero when it does not). */
  over: Money<W>;
}

/**
 * A sale fits when its exposure, balance + committed (other documents) + total, is within the credit
 * limit (docs/design.md "credit exposure"); a limit of 0 means no limit, here as everywhere. Every
 * figure is kept in its own currency and weighed in the limit's at its document's rate (weighIn).
 * The balance is what the partner owes as a customer (its receivable: vendor documents count
 * nothing), per currency the larger of the partners service's (which follows events, so it lags) and
 * this service's own: the two agree once every event is applied, and taking the larger means neither
 * a posting the partners ledger has not seen yet nor one made outside invoicing lets a sale through.
 * This service's documents are weighed one by one at their rates; what the partners service counts
 * beyond them, at the rate `rateOf` gives. Throws MissingRate naming a rate it needs and lacks.
 */
export function decideCreditLimit<W extends string>(
  weighing: CreditWeighing<W>,
  input: {
    /** The partners service's receivable per currency. */
    partnersReceivable: readonly Money[];
    /** What is due on this service's posted documents, signed by their effect on the receivable. */
    posted: readonly CreditAmount[];
    committed: readonly CreditAmount[];
    document: CreditAmount;
  },
): CreditDecision<W> {
  const { creditLimit: limit, accounting, limitRate } = weighing;
  const weigh = (items: readonly CreditAmount[]) => weighIn(limit.currency, accounting, limitRate, items);
  const beyondOwn = input.partnersReceivable.flatMap((theirs) => {
    const own = Money.sum(
      theirs.currency,
      input.posted.filter((p) => p.money.currency === theirs.currency).map((p) => p.money),
    );
    return theirs.greaterThan(own) ? [{ money: theirs.minus(own), rate: weighing.rateOf(theirs.currency) }] : [];
  });
  const balance = weigh([...input.posted, ...beyondOwn]);
  const committed = weigh(input.committed);
  const document = weigh([input.document]);
  const exposure = balance.plus(committed).plus(document);
  const allowed = !hasCreditLimit(limit.amount) || exposure.lessThanOrEqualTo(limit);
  const over = exposure.greaterThan(limit) ? exposure.minus(limit) : Money.zero(limit.currency);
  return { allowed, balance, committed, document, exposure, available: limit.minus(balance), over };
}
/** The one meaning of a zero limit: the partner has no credit limit (nothing is refused). */
export function hasCreditLimit(limit: DecimalLike): boolean {
  return dec(limit).greaterThan(0);
}
