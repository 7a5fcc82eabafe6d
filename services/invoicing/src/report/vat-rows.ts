import type { invoicing } from '@bo/contracts';
import { dec, toNumber, VAT_CATEGORIES, type Dec, type DecimalLike, type VatCategory } from '@bo/kernel';

type Direction = (typeof invoicing.vatDirections)[number];

/** The VAT accounts: output VAT (what sales owe the state) and input VAT (what purchases reclaim). */
export interface VatAccounts {
  output: string;
  input: string;
}

/**
 * The journal lines of a period the VAT report reads, summed by document type, account, category and
 * rate: the journal's own figures, in the accounting currency. `account` is the VAT account of a VAT
 * line, or null for a revenue or expense line tagged with the category and rate it carries, of an
 * entry that posted no VAT line for them (a category and rate bearing no VAT, zero rated say, posts
 * none: its base is read from those). `base` sums the lines' taxable amounts as the documents state
 * them (never signed by debit or credit).
 */
export interface VatLineGroup {
  invoicetype: invoicing.InvoiceType;
  account: string | null;
  tax_category: string | null;
  tax_rate: DecimalLike | null;
  debit: DecimalLike;
  credit: DecimalLike;
  base: DecimalLike;
}

export interface VatReportFigures {
  rows: invoicing.VatReportRow[];
  totals: { output_tax: number; input_tax: number; net_payable: number };
}

const SALES: ReadonlySet<invoicing.InvoiceType> = new Set(['invoiceout', 'creditout']);
const CREDIT_NOTES: ReadonlySet<invoicing.InvoiceType> = new Set(['creditout', 'creditin']);

/**
 * The VAT report of a period from its journal lines (docs/invoicing.md, "VAT report"):
 *
 * - the totals are the VAT accounts' movements, nothing else: output_tax = credits − debits of the
 *   output account, input_tax = debits − credits of the input account, so they equal the journal to
 *   the cent by construction;
 * - a row per direction (the document's: sales or purchases), category and rate, with the base and
 *   the VAT its direction's own account posted (output for sales, input for purchases), credit notes
 *   negative;
 * - a document's category and rate that posted no VAT line (zero rated, exempt, intra-community,
 *   export: no VAT, so no line) counts the base of the revenue or expense lines tagged with it;
 * - a reverse-charge purchase posts the same VAT to both accounts (self-assessed): its row (purchases,
 *   `AE`, the self-assessed rate) shows it once, as input VAT, and the totals count it in output_tax
 *   and input_tax alike. So output_tax = Σ sales rows' tax + the self-assessed VAT, input_tax = Σ
 *   purchases rows' tax. Its expense line (`AE` at 0 %) adds no row: the VAT lines carry its base.
 *   A VAT line on the other account whose category and rate have no row of their own still makes
 *   one, with its base and no VAT.
 */
export function vatReportFigures(groups: readonly VatLineGroup[], accounts: VatAccounts): VatReportFigures {
  let output = dec(0);
  let input = dec(0);
  const rows = new Map<string, { direction: Direction; tax_category: VatCategory | null; tax_rate: Dec | null; base: Dec; tax: Dec }>();
  const keyOf = (direction: Direction, g: VatLineGroup) =>
    `${direction}|${g.tax_category ?? ''}|${g.tax_rate === null ? '' : dec(g.tax_rate).toString()}`;
  const rowOf = (direction: Direction, g: VatLineGroup) => {
    const key = keyOf(direction, g);
    let row = rows.get(key);
    if (!row) {
      row = {
        direction,
        tax_category: g.tax_category as VatCategory | null,
        tax_rate: g.tax_rate === null ? null : dec(g.tax_rate),
        base: dec(0),
        tax: dec(0),
      };
      rows.set(key, row);
    }
    return row;
  };

  const onOtherAccount: Array<[Direction, VatLineGroup]> = [];
  const tagged: Array<[Direction, VatLineGroup]> = [];
  for (const g of groups) {
    const direction: Direction = SALES.has(g.invoicetype) ? 'sales' : 'purchases';
    if (g.account === null) {
      // A purchase's reverse charge: its VAT lines carry the base, at the self-assessed rate.
      if (!(direction === 'purchases' && g.tax_category === 'AE')) tagged.push([direction, g]);
      continue;
    }
    const outputTax = dec(g.credit).minus(dec(g.debit));
    if (g.account === accounts.output) output = output.plus(outputTax);
    if (g.account === accounts.input) input = input.plus(outputTax.negated());
    const own = direction === 'sales' ? accounts.output : accounts.input;
    if (g.account !== own) {
      onOtherAccount.push([direction, g]);
      continue;
    }
    const row = rowOf(direction, g);
    row.base = row.base.plus(signedBase(g));
    row.tax = row.tax.plus(direction === 'sales' ? outputTax : outputTax.negated());
  }
  const withOwnVat = new Set(rows.keys());
  for (const [direction, g] of onOtherAccount) {
    if (withOwnVat.has(keyOf(direction, g))) continue;
    const row = rowOf(direction, g);
    row.base = row.base.plus(signedBase(g));
  }
  for (const [direction, g] of tagged) {
    const row = rowOf(direction, g);
    row.base = row.base.plus(signedBase(g));
  }

  const ordered = [...rows.values()].sort(
    (a, b) =>
      (a.direction === b.direction ? 0 : a.direction === 'sales' ? -1 : 1) ||
      categoryOrder(a.tax_category) - categoryOrder(b.tax_category) ||
      rateOrder(a.tax_rate, b.tax_rate),
  );
  return {
    rows: ordered.map((r) => ({
      direction: r.direction,
      tax_category: r.tax_category,
      tax_rate: r.tax_rate === null ? null : amount(r.tax_rate),
      base: amount(r.base),
      tax: amount(r.tax),
    })),
    totals: { output_tax: amount(output), input_tax: amount(input), net_payable: amount(output.minus(input)) },
  };
}

/** A figure as the reply writes it (a zero never negative). */
const amount = (value: Dec): number => toNumber(value) + 0;

/** A document's taxable amount as the report counts it: a credit note takes it off. */
function signedBase(g: VatLineGroup): Dec {
  const base = dec(g.base).abs();
  return CREDIT_NOTES.has(g.invoicetype) ? base.negated() : base;
}

/** Categories in EN 16931's order, lumps of several rates (no category) last. */
function categoryOrder(category: VatCategory | null): number {
  return category === null ? VAT_CATEGORIES.length : VAT_CATEGORIES.indexOf(category);
}

function rateOrder(a: Dec | null, b: Dec | null): number {
  if (a === null || b === null) return (a === null ? 1 : 0) - (b === null ? 1 : 0);
  return a.comparedTo(b);
}
