import { deflateSync } from 'node:zlib';
import { computeLine, decideDocumentTaxes, sumLines, type AllowanceChargeInput, type TaxLineInput } from '@bo/kernel';
import type { DocumentKind, DocumentLine, RenderableDocument } from '../src';
import { makePng } from '../../../tests/support/png';

/** PNG of 2 x 2 RGB pixels (a tiny logo: red, green / blue, white), so the PDF shows an embedded image. */
export const tinyLogo = makePng({
  width: 2,
  height: 2,
  colourType: 2,
  idat: deflateSync(Buffer.from([0, 255, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255])),
});

type LineSpec = Omit<DocumentLine, 'subtotal' | 'tax_amount' | 'total'>;

/** A line with the amounts the services store, computed by the services' own arithmetic. */
export function line(spec: LineSpec): DocumentLine {
  const a = computeLine(spec);
  return { ...spec, subtotal: a.subtotal.toFixed(2), tax_amount: a.tax_amount.toFixed(2), total: a.total.toFixed(2) };
}

export const sampleLines: DocumentLine[] = [
  line({
    name: 'Consulting',
    sku: 'SRV-1',
    unit: 'hour',
    quantity: '7.5',
    price: '95.00',
    discount: '0',
    tax_rate: '20',
    tax_included: false,
  }),
  line({
    name: 'Widget',
    sku: 'W-42',
    unit: 'piece',
    quantity: '3',
    price: '19.99',
    discount: '10',
    tax_rate: '20',
    tax_included: false,
    description: 'Blue, large',
  }),
  line({ name: 'Book', unit: 'piece', quantity: '2', price: '12.50', discount: '0', tax_rate: '5.5', tax_included: true }),
  line({
    name: 'Coffee beans',
    sku: 'CB-1',
    unit: 'kg',
    quantity: '1.25',
    price: '23.90',
    discount: '5',
    tax_rate: '5.5',
    tax_included: true,
  }),
  line({ name: 'Export service', unit: null, quantity: '3', price: '10.0001', discount: '0', tax_rate: '0', tax_included: false }),
];

export const seller = {
  name: 'Acme Ltd',
  trading_name: 'Acme',
  address_lines: ['1 Main Street', 'Unit 4'],
  city: 'Dublin',
  postal_code: 'D02 X285',
  country: 'IE',
  vat_id: 'IE6388047V',
  company_id: '123456',
  email: 'billing@acme.test',
  phone: '+353 1 234 5678',
};

export const greekBuyer = {
  name: 'Ελληνική Εταιρεία Α.Ε.',
  address_lines: ['Οδός Αθηνάς 10'],
  city: 'Αθήνα',
  postal_code: '10551',
  country: 'GR',
  email: 'info@example.gr',
  vat_id: 'EL094259216',
};

export const cyrillicBuyer = {
  name: 'ООО «Пример»',
  address_lines: ['ул. Ленина, 1'],
  city: 'София',
  postal_code: '1000',
  country: 'BG',
  email: 'office@example.bg',
};

export function sampleDocument(kind: DocumentKind, overrides: Partial<RenderableDocument> = {}): RenderableDocument {
  const lines = overrides.lines ?? sampleLines;
  const totals = sumLines(lines.map((l) => computeLine(l)));
  return {
    kind,
    number: 'INV-000042',
    draft: false,
    issue_date: '2026-11-02',
    due_date: '2026-12-02',
    currency: 'EUR',
    payment_terms: 'Net 30',
    notes: 'Thank you for your business.',
    reference: 'PO-7',
    seller,
    buyer: greekBuyer,
    lines,
    totals: { subtotal: totals.subtotal.toFixed(2), tax_amount: totals.tax_amount.toFixed(2), total: totals.total.toFixed(2) },
    amount_paid: '0',
    payment_account: { iban: 'IE29AIBK93115212345678', bic: 'AIBKIE2D' },
    logo_png: tinyLogo,
    ...overrides,
  };
}

/** A line of a taxed document: what is stored of it, with its category and exemption. */
export type TaxedLineSpec = LineSpec & Pick<TaxLineInput, 'tax_category' | 'tax_exemption_reason' | 'tax_exemption_code'>;

export interface TaxedSpec {
  currency: string;
  rounding?: 'line' | 'document';
  cash_rounding?: string | null;
  lines: readonly TaxedLineSpec[];
  allowances_charges?: readonly AllowanceChargeInput[];
}

/**
 * A document as the services make one with taxes: the kernel decides them from the lines, the
 * allowances and charges, and the parties' VAT ids; the lines store its amounts, the totals are its
 * BT-109, the amount due and the difference (docs/invoicing.md, "Taxes and rounding").
 */
export function taxedDocument(kind: DocumentKind, spec: TaxedSpec, overrides: Partial<RenderableDocument> = {}): RenderableDocument {
  const base = sampleDocument(kind, overrides);
  const decision = decideDocumentTaxes({
    currency: spec.currency,
    rounding: spec.rounding,
    cash_rounding: spec.cash_rounding,
    lines: spec.lines,
    allowances_charges: spec.allowances_charges,
    parties: { seller_vat_id: base.seller.vat_id ?? null, buyer_vat_id: base.buyer.vat_id ?? null },
  });
  if (!decision.ok) throw new Error(`the kernel refuses the fixture: ${JSON.stringify(decision.errors)}`);
  const taxes = decision.document;
  const m = taxes.minor_unit;
  const lines: DocumentLine[] = spec.lines.map((l, i) => {
    const { tax_category: _c, tax_exemption_reason: _r, tax_exemption_code: _x, ...stored } = l;
    const t = taxes.lines[i]!;
    return { ...stored, subtotal: t.net.toFixed(m), tax_amount: t.tax.toFixed(m), total: t.gross.toFixed(m) };
  });
  const t = taxes.totals;
  return {
    ...base,
    currency: spec.currency,
    lines,
    totals: {
      subtotal: t.tax_exclusive_amount.toFixed(m),
      tax_amount: t.payable_amount.minus(t.tax_exclusive_amount).toFixed(m),
      total: t.payable_amount.toFixed(m),
    },
    taxes,
    ...overrides,
  };
}

/** Runs fn with the clock (Date only; timers keep running) set to the given instant. */
export async function atClock<T>(iso: string, fn: () => Promise<T>): Promise<T> {
  jest.useFakeTimers({
    now: new Date(iso),
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  try {
    expect(new Date().toISOString()).toBe(new Date(iso).toISOString());
    return await fn();
  } finally {
    jest.useRealTimers();
  }
}
