import { dec, type DecimalLike } from '../money';

/**
 * The VAT category codes of EN 16931 (UNCL 5305, as BR-CL-17 restricts them; `B`, Italy's split
 * payment, is left out: it belongs to a national extension, not to the model these documents use).
 */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/**
 * What EN 16931 asks of a category, line, allowance or charge alike:
 * - `rate`: `positive` (BR-S-05..07), `zero` (BR-Z/E/AE/IC/G-05..07; `O` has no rate at all, BR-O-05..07,
 *   which this model writes as 0), `any` (0 or more: BR-AG-05..07). `L` (IGIC) is `positive`: EN 16931
 *   takes 0 or more, but the CII rules of the official validation artefacts (1.3.16, BR-AF-05..07)
 *   want a rate above 0, and a document accepted here renders as an e-invoice in both syntaxes, so
 *   an IGIC row at 0 is refused when it is written rather than becoming a CII file that fails.
 * - `exemption`: the category's VAT breakdown states why no VAT is charged (BR-E/AE/IC/G/O-10), or
 *   must not (BR-S/Z/AF/AG-10).
 * - `seller_vat_id` / `buyer_vat_id`: the party VAT identifiers the category needs (BR-AE-02..04,
 *   BR-IC-02..04, BR-G-02..04, BR-AF/AG-02..04). S, Z and E need the seller's too (BR-S/Z/E-02), which
 *   the e-invoice checks when it is rendered, so that documents of sellers without a VAT id stay
 *   possible as PDFs.
 */
export interface CategoryRules {
  name: string;
  rate: 'positive' | 'zero' | 'any';
  exemption: 'required' | 'forbidden';
  seller_vat_id: boolean;
  buyer_vat_id: boolean;
  /** The VATEX code meaning the category itself, stated when the document gives none (BR-AE/IC/G/O-10). */
  vatex?: string;
}

export const CATEGORY_RULES: Readonly<Record<VatCategory, CategoryRules>> = {
  S: { name: 'Standard rate', rate: 'positive', exemption: 'forbidden', seller_vat_id: false, buyer_vat_id: false },
  Z: { name: 'Zero rated goods', rate: 'zero', exemption: 'forbidden', seller_vat_id: false, buyer_vat_id: false },
  E: { name: 'Exempt from tax', rate: 'zero', exemption: 'required', seller_vat_id: false, buyer_vat_id: false },
  AE: {
    name: 'VAT reverse charge',
    rate: 'zero',
    exemption: 'required',
    seller_vat_id: true,
    buyer_vat_id: true,
    vatex: 'VATEX-EU-AE',
  },
  K: {
    name: 'VAT exempt for EEA intra-community supply of goods and services',
    rate: 'zero',
    exemption: 'required',
    seller_vat_id: true,
    buyer_vat_id: true,
    vatex: 'VATEX-EU-IC',
  },
  G: {
    name: 'Free export item, VAT not charged',
    rate: 'zero',
    exemption: 'required',
    seller_vat_id: true,
    buyer_vat_id: false,
    vatex: 'VATEX-EU-G',
  },
  O: {
    name: 'Services outside scope of tax',
    rate: 'zero',
    exemption: 'required',
    seller_vat_id: false,
    buyer_vat_id: false,
    vatex: 'VATEX-EU-O',
  },
  L: { name: 'Canary Islands general indirect tax', rate: 'positive', exemption: 'forbidden', seller_vat_id: true, buyer_vat_id: false },
  M: {
    name: 'Tax for production, services and importation in Ceuta and Melilla',
    rate: 'any',
    exemption: 'forbidden',
    seller_vat_id: true,
    buyer_vat_id: false,
  },
};

export function isVatCategory(value: unknown): value is VatCategory {
  return typeof value === 'string' && (VAT_CATEGORIES as readonly string[]).includes(value);
}

/** A line or allowance that names no category: standard rated when it charges VAT, zero rated when not. */
export function defaultCategory(rate: DecimalLike): VatCategory {
  return dec(rate).gt(0) ? 'S' : 'Z';
}
