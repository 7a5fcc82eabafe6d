import type { Invoice } from '@e-invoice-eu/core';
import { dec, defaultCategory, withinVatTolerance, type Dec, type VatBreakdown, type VatCategory } from '@bo/kernel';
import { plain } from '../decimal';
import { creditNoteKinds, type DocumentLine, type Party, type RenderableDocument } from '../model';
import { amount, documentCategories, documentTaxes, type DocumentTaxes } from '../taxes';
import { unitCode } from '../units';
import { netLine } from './net-line';
import type { EInvoiceProfile } from './requirements';

/** EN 16931 itself, no CIUS on top (BT-24). */
export const EN16931_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017';
/** Peppol BIS Billing 3.0 (BT-24, PEPPOL-EN16931-R004). */
export const PEPPOL_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
/** The Peppol billing process (BT-23, PEPPOL-EN16931-R001, R007). */
export const PEPPOL_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** UNCL 1001: invoices (ours and vendor bills received) are commercial invoices, credit notes 381. */
export function documentTypeCode(kind: RenderableDocument['kind']): '380' | '381' {
  return creditNoteKinds.includes(kind) ? '381' : '380';
}

/** UNCL 5305 for a document without categories: a positive rate is standard-rated (S), a zero rate zero-rated (Z). */
export function taxCategory(rate: string): 'S' | 'Z' {
  return defaultCategory(rate) as 'S' | 'Z';
}

/**
 * UNCL 4461: 58 (SEPA credit transfer) with the seller's IBAN; without an account the means is not
 * stated (1), since credit transfer (30) would require an account (BR-61).
 */
export function paymentMeansCode(doc: Pick<RenderableDocument, 'kind' | 'payment_account'>): '58' | '1' {
  return payeeAccount(doc)?.iban ? '58' : '1';
}

type Json = Record<string, unknown>;

function text(value: string | null | undefined): string | undefined {
  const t = value?.trim();
  return t ? t : undefined;
}

function compact<T extends Json>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

function postalAddress(party: Party): Json {
  const lines = (party.address_lines ?? []).map(text).filter((l): l is string => l !== undefined);
  return compact({
    'cbc:StreetName': lines[0],
    'cbc:AdditionalStreetName': lines[1],
    'cbc:CityName': text(party.city),
    'cbc:PostalZone': text(party.postal_code),
    'cbc:CountrySubentity': text(party.region),
    'cac:AddressLine': lines.length > 2 ? { 'cbc:Line': lines.slice(2).join(', ') } : undefined,
    'cac:Country': { 'cbc:IdentificationCode': text(party.country)?.toUpperCase() },
  });
}

/**
 * The electronic address (BT-34, BT-49): on Peppol the party's participant id, its EAS scheme as the
 * schemeID (PEPPOL-EN16931-R020, R010, CL008); otherwise its email (scheme EM), which the library requires.
 */
function endpoint(p: Party, profile: EInvoiceProfile): { id?: string; scheme?: string } {
  if (profile === 'peppol') {
    const id = text(p.peppol_id);
    const colon = id?.indexOf(':') ?? -1;
    return id && colon > 0 ? { id: id.slice(colon + 1), scheme: id.slice(0, colon) } : {};
  }
  const email = text(p.email);
  return email ? { id: email, scheme: 'EM' } : {};
}

/** `withVatId`: false on a document outside the scope of VAT, which states no VAT identifier (BR-O-02..04). */
function party(p: Party, role: 'seller' | 'buyer', withVatId: boolean, profile: EInvoiceProfile): Json {
  const vat = withVatId ? text(p.vat_id) : undefined;
  const taxScheme = vat ? { 'cbc:CompanyID': vat, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } } : undefined;
  const address = endpoint(p, profile);
  return compact({
    'cbc:EndpointID': address.id,
    'cbc:EndpointID@schemeID': address.scheme,
    'cac:PartyName': text(p.trading_name) ? { 'cbc:Name': text(p.trading_name) } : undefined,
    'cac:PostalAddress': postalAddress(p),
    // The seller may carry two tax ids (VAT and tax registration), the buyer one: an array and an object.
    'cac:PartyTaxScheme': taxScheme && role === 'seller' ? [taxScheme] : taxScheme,
    'cac:PartyLegalEntity': compact({ 'cbc:RegistrationName': p.name.trim(), 'cbc:CompanyID': text(p.company_id) }),
    'cac:Contact':
      text(p.email) || text(p.phone) ? compact({ 'cbc:Telephone': text(p.phone), 'cbc:ElectronicMail': text(p.email) }) : undefined,
  });
}

/** A category and its rate; `O` states no rate (BR-O-05..07). */
function taxCategoryOf(category: VatCategory, rate: Dec): Json {
  return compact({ 'cbc:ID': category, 'cbc:Percent': category === 'O' ? undefined : plain(rate), 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });
}

function invoiceLine(line: DocumentLine, index: number, currency: string, taxes: DocumentTaxes): Json {
  const unit = unitCode(line.unit);
  const t = taxes.lines[index]!;
  const places = taxes.minor_unit;
  const n = netLine(line, t.net, places);
  const allowance = n.allowance.isZero()
    ? undefined
    : [
        {
          'cbc:ChargeIndicator': 'false',
          'cbc:AllowanceChargeReasonCode': '95',
          'cbc:AllowanceChargeReason': `Discount ${plain(line.discount)}%`,
          'cbc:Amount': amount(n.allowance, places),
          'cbc:Amount@currencyID': currency,
        },
      ];
  return compact({
    'cbc:ID': String(index + 1),
    'cbc:InvoicedQuantity': plain(line.quantity),
    'cbc:InvoicedQuantity@unitCode': unit,
    'cbc:LineExtensionAmount': amount(t.net, places),
    'cbc:LineExtensionAmount@currencyID': currency,
    'cac:AllowanceCharge': allowance,
    'cac:Item': compact({
      'cbc:Description': text(line.description),
      'cbc:Name': text(line.name) ?? 'Item',
      'cac:SellersItemIdentification': text(line.sku) ? { 'cbc:ID': text(line.sku) } : undefined,
      'cac:ClassifiedTaxCategory': taxCategoryOf(t.tax_category, t.tax_rate),
    }),
    'cac:Price': compact({
      'cbc:PriceAmount': plain(n.price),
      'cbc:PriceAmount@currencyID': currency,
      'cbc:BaseQuantity': n.baseQuantity.eq(1) ? undefined : plain(n.baseQuantity),
      'cbc:BaseQuantity@unitCode': n.baseQuantity.eq(1) ? undefined : unit,
    }),
  });
}

/**
 * BG-20 and BG-21: each allowance and charge with its reason, percent and base when a percent made it,
 * and its category. Peppol (PEPPOL-EN16931-R040) wants the amount within 0.02 of base × percent / 100;
 * in a currency of few decimals the amount, rounded to the minor unit, can be further off (31 JPY at
 * 9.61 % is 2.98, charged as 3), so a Peppol document then states the amount alone: it is what was
 * charged, and percent and base are optional.
 */
function allowanceCharges(taxes: DocumentTaxes, currency: string, profile: EInvoiceProfile): Json[] | undefined {
  if (taxes.allowances_charges.length === 0) return undefined;
  const places = taxes.minor_unit;
  return taxes.allowances_charges.map((ac) => {
    // As a reader recomputes it: from the figures printed.
    const recomputable =
      ac.percent &&
      ac.base_amount &&
      (profile !== 'peppol' ||
        dec(amount(ac.amount, places))
          .minus(dec(amount(ac.base_amount, places)).times(plain(ac.percent)).div(100))
          .abs()
          .lte('0.02'));
    return compact({
      'cbc:ChargeIndicator': ac.charge ? 'true' : 'false',
      'cbc:AllowanceChargeReasonCode': ac.reason_code ?? undefined,
      'cbc:AllowanceChargeReason': ac.reason ?? undefined,
      'cbc:MultiplierFactorNumeric': ac.percent && (recomputable || !ac.base_amount) ? plain(ac.percent) : undefined,
      'cbc:Amount': amount(ac.amount, places),
      'cbc:Amount@currencyID': currency,
      'cbc:BaseAmount': ac.base_amount && (recomputable || !ac.percent) ? amount(ac.base_amount, places) : undefined,
      'cbc:BaseAmount@currencyID': ac.base_amount && (recomputable || !ac.percent) ? currency : undefined,
      'cac:TaxCategory': taxCategoryOf(ac.tax_category, ac.tax_rate),
    });
  });
}

/** BG-23: one per category and rate, with the reason no VAT is charged where the category has one (BT-120, BT-121). */
function vatBreakdown(b: VatBreakdown, currency: string, places: number): Json {
  return {
    'cbc:TaxableAmount': amount(b.taxable_amount, places),
    'cbc:TaxableAmount@currencyID': currency,
    'cbc:TaxAmount': amount(b.tax_amount, places),
    'cbc:TaxAmount@currencyID': currency,
    'cac:TaxCategory': compact({
      ...taxCategoryOf(b.tax_category, b.tax_rate),
      'cbc:TaxExemptionReasonCode': b.exemption_code ?? undefined,
      'cbc:TaxExemptionReason': b.exemption_reason ?? undefined,
    }),
  };
}

/**
 * BR-CO-17 as the kernel's `withinVatTolerance` states it. The kernel's breakdown holds it by
 * construction; a document from before it sums each line's tax, rounded on its own, and those
 * roundings add up, up to half a cent per line, whether prices include tax or not (500 lines at 1.00
 * including 20 % carry 85.00 tax on 415.00, where 20 % is 83.00). Such a document cannot be a valid
 * e-invoice; this says why for each category that fails, empty if none.
 */
export function taxRoundingProblems(breakdown: readonly VatBreakdown[], currency: string, places = 2): string[] {
  return breakdown.flatMap((g) => {
    if (withinVatTolerance(g.tax_amount, g.taxable_amount, g.tax_rate)) return [];
    const rate = plain(g.tax_rate);
    const expected = g.taxable_amount.abs().times(g.tax_rate.div(100)).toDecimalPlaces(2);
    const off = g.tax_amount.abs().minus(expected).abs();
    const money = (value: Dec) => amount(value, places);
    return [
      `the ${rate} % lines carry ${money(g.tax_amount)} ${currency} of tax summed line by line, while ${rate} % of their ${money(g.taxable_amount)} is ${money(expected)}: ` +
        `${money(off)} apart, and EN 16931 (BR-CO-17) accepts less than 1.00 (each line's tax is rounded to cents and over many lines the roundings add up; split the invoice into smaller ones)`,
    ];
  });
}

/**
 * Where the buyer pays the seller (BG-16, BG-17): only on an invoice. On a credit note the seller
 * owes the buyer, so the seller's account is no payee account, and the buyer's is not known.
 */
export function payeeAccount(doc: Pick<RenderableDocument, 'kind' | 'payment_account'>): RenderableDocument['payment_account'] {
  return creditNoteKinds.includes(doc.kind) ? null : (doc.payment_account ?? null);
}

/**
 * BT-20: always stated, so a credit note (UBL CreditNote has no due date) still says when (BR-CO-25);
 * a credit note says the amount is credited, not that it is due.
 */
function paymentTermsNote(doc: RenderableDocument): string {
  const terms = text(doc.payment_terms);
  if (creditNoteKinds.includes(doc.kind)) {
    const by = doc.due_date ? ` by ${doc.due_date}` : '';
    return [terms, `Amount credited to the buyer, refunded or set against open invoices${by}; nothing to pay`].filter(Boolean).join('. ');
  }
  const due = doc.due_date ? `Due ${doc.due_date}` : undefined;
  return [terms, due].filter(Boolean).join('. ') || 'Payable on receipt';
}

/**
 * The document in @e-invoice-eu/core's input model (UBL 2.1 shaped JSON), from which it writes UBL,
 * CII and Factur-X. Amounts are the model's own (documentTaxes): the lines' nets, the allowances and
 * charges, the VAT breakdown and the totals, each with the currency's decimals, so the e-invoice says
 * exactly what the PDF and the ledger say. With `profile` `peppol` it is a Peppol BIS Billing 3.0
 * document: the Peppol customization and profile ids, the parties' Peppol ids as their addresses.
 */
export function invoiceData(doc: RenderableDocument, profile: EInvoiceProfile = 'en16931'): Invoice {
  const currency = doc.currency.toUpperCase();
  const taxes = documentTaxes(doc);
  const places = taxes.minor_unit;
  const money = (value: Dec) => amount(value, places);
  const totals = taxes.totals;
  const hasAllowance = taxes.allowances_charges.some((a) => !a.charge) || !totals.allowance_total.isZero();
  const hasCharge = taxes.allowances_charges.some((a) => a.charge) || !totals.charge_total.isZero();
  const paid = dec(doc.amount_paid);
  const account = payeeAccount(doc);
  const credit = creditNoteKinds.includes(doc.kind);
  const accounting = doc.accounting ?? null;
  const categories = documentCategories(doc);
  // A document outside the scope of VAT states no VAT identifier of either party (BR-O-02..04).
  const vatIds = !categories.has('O');
  // An intra-community supply says when and to which country it was delivered (BR-IC-11, BR-IC-12).
  const delivery = doc.delivery ?? (categories.has('K') ? {} : null);
  const deliveredTo = delivery ? (text(delivery.country) ?? text(doc.buyer.country))?.toUpperCase() : undefined;
  const data = compact({
    'cbc:CustomizationID': profile === 'peppol' ? PEPPOL_CUSTOMIZATION_ID : EN16931_CUSTOMIZATION_ID,
    // The library writes the Peppol process id on every UBL document unless told otherwise; it is stated here for Peppol, so it does not depend on that.
    'cbc:ProfileID': profile === 'peppol' ? PEPPOL_PROFILE_ID : undefined,
    'cbc:ID': doc.number,
    'cbc:IssueDate': doc.issue_date,
    // BT-9 is when the buyer pays; a credit note's date of refund is in its payment terms instead.
    'cbc:DueDate': credit ? undefined : (doc.due_date ?? undefined),
    'cbc:InvoiceTypeCode': documentTypeCode(doc.kind),
    'cbc:Note': text(doc.notes) ? [text(doc.notes)] : undefined,
    'cbc:DocumentCurrencyCode': currency,
    'cbc:TaxCurrencyCode': accounting ? accounting.currency : undefined,
    'cbc:BuyerReference': text(doc.reference),
    'cac:BillingReference': doc.credited_invoice
      ? [
          {
            'cac:InvoiceDocumentReference': compact({
              'cbc:ID': doc.credited_invoice.number,
              'cbc:IssueDate': doc.credited_invoice.issue_date ?? undefined,
            }),
          },
        ]
      : undefined,
    'cac:AccountingSupplierParty': { 'cac:Party': party(doc.seller, 'seller', vatIds, profile) },
    'cac:AccountingCustomerParty': { 'cac:Party': party(doc.buyer, 'buyer', vatIds, profile) },
    'cac:Delivery': delivery
      ? compact({
          'cbc:ActualDeliveryDate': text(delivery.date) ?? doc.issue_date,
          'cac:DeliveryLocation': deliveredTo ? { 'cac:Address': { 'cac:Country': { 'cbc:IdentificationCode': deliveredTo } } } : undefined,
        })
      : undefined,
    // A credit note states no payment means: the payment instructions (BG-16) tell the buyer how to pay.
    'cac:PaymentMeans': credit
      ? undefined
      : [
          compact({
            'cbc:PaymentMeansCode': paymentMeansCode(doc),
            'cbc:PaymentID': text(doc.payment_reference) ?? doc.number,
            'cac:PayeeFinancialAccount': account?.iban
              ? compact({
                  'cbc:ID': account.iban.replace(/\s+/g, '').toUpperCase(),
                  'cbc:Name': text(account.name),
                  'cac:FinancialInstitutionBranch': text(account.bic) ? { 'cbc:ID': text(account.bic) } : undefined,
                })
              : undefined,
          }),
        ],
    'cac:PaymentTerms': { 'cbc:Note': paymentTermsNote(doc) },
    'cac:AllowanceCharge': allowanceCharges(taxes, currency, profile),
    'cac:TaxTotal': [
      {
        'cbc:TaxAmount': money(totals.tax_total),
        'cbc:TaxAmount@currencyID': currency,
        'cac:TaxSubtotal': taxes.breakdown.map((b) => vatBreakdown(b, currency, places)),
      },
      // BT-111: the VAT total in the accounting currency, a second TaxTotal without breakdown (BR-53).
      ...(accounting ? [{ 'cbc:TaxAmount': accounting.tax_total, 'cbc:TaxAmount@currencyID': accounting.currency }] : []),
    ],
    'cac:LegalMonetaryTotal': compact({
      'cbc:LineExtensionAmount': money(totals.line_net_total),
      'cbc:LineExtensionAmount@currencyID': currency,
      'cbc:TaxExclusiveAmount': money(totals.tax_exclusive_amount),
      'cbc:TaxExclusiveAmount@currencyID': currency,
      'cbc:TaxInclusiveAmount': money(totals.tax_inclusive_amount),
      'cbc:TaxInclusiveAmount@currencyID': currency,
      // BR-CO-11/12: stated whenever the document has an allowance (a charge), even one of 0.
      'cbc:AllowanceTotalAmount': hasAllowance ? money(totals.allowance_total) : undefined,
      'cbc:AllowanceTotalAmount@currencyID': hasAllowance ? currency : undefined,
      'cbc:ChargeTotalAmount': hasCharge ? money(totals.charge_total) : undefined,
      'cbc:ChargeTotalAmount@currencyID': hasCharge ? currency : undefined,
      'cbc:PrepaidAmount': paid.isZero() ? undefined : money(paid),
      'cbc:PrepaidAmount@currencyID': paid.isZero() ? undefined : currency,
      'cbc:PayableRoundingAmount': totals.rounding_amount.isZero() ? undefined : money(totals.rounding_amount),
      'cbc:PayableRoundingAmount@currencyID': totals.rounding_amount.isZero() ? undefined : currency,
      'cbc:PayableAmount': money(totals.payable_amount.minus(paid)),
      'cbc:PayableAmount@currencyID': currency,
    }),
    'cac:InvoiceLine': doc.lines.map((line, i) => invoiceLine(line, i, currency, taxes)),
  });
  return { 'ubl:Invoice': data } as unknown as Invoice;
}
