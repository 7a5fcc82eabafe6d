import fc from 'fast-check';
import { decideDocumentTaxes, type AllowanceChargeInput, type VatCategory } from '@bo/kernel';
import { accountingCurrency, type RenderableDocument } from '../src';
import { greekBuyer, seller, taxedDocument, type TaxedLineSpec, type TaxedSpec } from './fixtures';

/**
 * Random taxed documents for the property tests of the e-invoices (taxes.int.test.ts for EN 16931,
 * peppol.int.test.ts for Peppol): every VAT category with its rates and exemptions, allowances and
 * charges, both rounding policies, cash rounding, EUR, JPY and USD (the last two stated in EUR too,
 * BT-6, BT-111), invoices and credit notes.
 */
export const CATEGORIES: readonly VatCategory[] = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'];
const STANDARD_RATES = ['5', '5.5', '7', '10', '19', '20', '21', '25'];
/**
 * IGIC (L) lines at rates above 0: the CII rules of the artefacts (1.3.16) refuse an IGIC line at 0
 * (BR-AF-05 "greater than 0"), where the UBL rules, EN 16931 and the kernel take 0 or more.
 */
const IGIC_RATES = ['3', '7', '9.5', '15'];
const IPSI_RATES = ['0', '4', '10'];
const EXEMPTIONS: Partial<Record<VatCategory, readonly [string, string]>> = {
  E: ['Exempt medical care', 'VATEX-EU-132-1C'],
  AE: ['Reverse charge', 'VATEX-EU-AE'],
  K: ['Intra-community supply', 'VATEX-EU-IC'],
  G: ['Export outside the EU', 'VATEX-EU-G'],
  O: ['Not subject to VAT', 'VATEX-EU-O'],
};
interface Taxing {
  category: VatCategory;
  rate: string;
}
const rateOf = (category: VatCategory): fc.Arbitrary<string> =>
  category === 'S'
    ? fc.constantFrom(...STANDARD_RATES)
    : category === 'L'
      ? fc.constantFrom(...IGIC_RATES)
      : category === 'M'
        ? fc.constantFrom(...IPSI_RATES)
        : fc.constant('0');

const decimal = (max: number, places: number) =>
  fc.integer({ min: 0, max: max * 10 ** places }).map((n) => (n / 10 ** places).toFixed(places));

const lineArb = (tax: Taxing, stated: 'reason' | 'code' | 'both'): fc.Arbitrary<TaxedLineSpec> =>
  fc
    .record({
      quantity: fc.oneof(decimal(20, 0), decimal(50, 2)).filter((q) => Number(q) > 0),
      price: fc.oneof(decimal(2_000, 0), decimal(500, 2), decimal(100, 4)),
      discount: fc.oneof(fc.constant('0'), decimal(50, 2)),
      tax_included: fc.boolean(),
    })
    .map((l) => {
      const exemption = EXEMPTIONS[tax.category];
      return {
        name: `Item ${tax.category}`,
        unit: 'piece',
        ...l,
        tax_rate: tax.rate,
        tax_category: tax.category,
        tax_exemption_reason: exemption && stated !== 'code' ? exemption[0] : null,
        tax_exemption_code: exemption && stated !== 'reason' ? exemption[1] : null,
      };
    });

/**
 * An allowance or charge of a category that needs an exemption states it as the lines do: the
 * category may have no line on the document (BR-E-10 and the like), and one reason per category.
 */
const allowanceArb = (
  tax: Taxing,
  charge: boolean,
  places: number,
  stated: 'reason' | 'code' | 'both',
): fc.Arbitrary<AllowanceChargeInput> =>
  fc
    .record({
      by: fc.constantFrom('amount', 'percent', 'percent of base'),
      amount: decimal(20, places),
      percent: decimal(15, 2),
      base: decimal(200, places),
    })
    .map(({ by, amount, percent, base }) => ({
      charge,
      amount: by === 'amount' ? amount : null,
      percent: by === 'amount' ? null : percent,
      base_amount: by === 'percent of base' ? base : null,
      reason: charge ? 'Freight' : 'Discount',
      reason_code: charge ? 'FC' : '95',
      tax_category: tax.category,
      tax_rate: tax.rate,
      tax_exemption_reason: EXEMPTIONS[tax.category] && stated !== 'code' ? EXEMPTIONS[tax.category]![0] : null,
      tax_exemption_code: EXEMPTIONS[tax.category] && stated !== 'reason' ? EXEMPTIONS[tax.category]![1] : null,
    }));

/** A random document whose lines include `category`; O stays alone (BR-O-11..14), the rest mix with any category but O. */
export function documentArb(category: VatCategory) {
  const others = CATEGORIES.filter((c) => c !== 'O');
  const taxing = (c: VatCategory) => rateOf(c).map((rate): Taxing => ({ category: c, rate }));
  const groups =
    category === 'O'
      ? fc.tuple(taxing('O')).map((g) => [...g])
      : fc.tuple(taxing(category), fc.array(fc.constantFrom(...others).chain(taxing), { maxLength: 2 })).map(([g, more]) => [g, ...more]);
  return fc
    .record({
      groups,
      stated: fc.constantFrom('reason', 'code', 'both' as const),
      currency: fc.constantFrom('EUR', 'EUR', 'JPY', 'USD'),
      rounding: fc.constantFrom('line' as const, 'document' as const),
      kind: fc.constantFrom('invoice' as const, 'invoice' as const, 'credit_note' as const),
      cash: fc.boolean(),
    })
    .chain(({ groups: g, stated, currency, rounding, kind, cash }) => {
      const places = currency === 'JPY' ? 0 : 2;
      const lines = fc.tuple(
        lineArb(g[0]!, stated),
        fc.array(
          fc.nat({ max: g.length - 1 }).chain((i) => lineArb(g[i]!, stated)),
          { maxLength: 4 },
        ),
      );
      const acs = fc.array(
        fc.tuple(fc.boolean(), fc.nat({ max: g.length - 1 })).chain(([charge, i]) => allowanceArb(g[i]!, charge, places, stated)),
        { maxLength: 2 },
      );
      return fc.record({ lines, acs }).map(({ lines: [first, rest], acs: a }): { kind: 'invoice' | 'credit_note'; spec: TaxedSpec } => ({
        kind,
        spec: {
          currency,
          rounding,
          cash_rounding: cash ? (currency === 'JPY' ? '10' : '0.05') : null,
          lines: [first, ...rest],
          allowances_charges: a,
        },
      }));
    });
}

/** The document, or null when an allowance took its category below zero (the one refusal random documents may earn). */
export function decided(kind: 'invoice' | 'credit_note', spec: TaxedSpec, n: number): RenderableDocument | null {
  const decision = decideDocumentTaxes({ ...spec, parties: { seller_vat_id: seller.vat_id, buyer_vat_id: greekBuyer.vat_id } });
  if (!decision.ok) {
    if (decision.errors.every((e) => /^allowances_charges\.\d+\.amount$/.test(e.field) && e.message.includes('below 0'))) return null;
    throw new Error(`refused: ${JSON.stringify(decision.errors)}`);
  }
  const doc = taxedDocument(kind, spec, { number: `RND-${n}` });
  if (spec.currency !== 'EUR') {
    return {
      ...doc,
      accounting: accountingCurrency(spec.currency, doc.taxes!.breakdown, {
        currency: 'EUR',
        exchange_rate: spec.currency === 'JPY' ? '0.0061' : '0.92',
      }),
    };
  }
  return doc;
}
