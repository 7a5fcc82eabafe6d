import type { Invoice } from '@e-invoice-eu/core';
import { dec, type Dec } from '@bo/kernel';
import { cents, plain } from '../decimal';
import { creditNoteKinds, type DocumentLine, type Party, type RenderableDocument } from '../model';
import { unitCode } from '../units';
import { netLine } from './net-line';

/** EN 16931 itself, no CIUS on top (BT-24). */
export const EN16931_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017';

/** UNCL 1001: invoices (ours and vendor bills received) are commercial invoices, credit notes 381. */
export function documentTypeCode(kind: RenderableDocument['kind']): '380' | '381' {
  return creditNoteKinds.includes(kind) ? '381' : '380';
}

/** UNCL 5305: a positive rate is standard-rated (S), a zero rate zero-rated (Z). */
export function taxCategory(rate: string): 'S' | 'Z' {
  return dec(rate).isZero() ? 'Z' : 'S';
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

function party(p: Party, role: 'seller' | 'buyer'): Json {
  const vat = text(p.vat_id);
  const taxScheme = vat ? { 'cbc:CompanyID': vat, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } } : undefined;
  return compact({
    // The electronic address (BT-34, BT-49): the party's email (scheme EM), which the library requires.
    'cbc:EndpointID': text(p.email),
    'cbc:EndpointID@schemeID': text(p.email) ? 'EM' : undefined,
    'cac:PartyName': text(p.trading_name) ? { 'cbc:Name': text(p.trading_name) } : undefined,
    'cac:PostalAddress': postalAddress(p),
    // The seller may carry two tax ids (VAT and tax registration), the buyer one: an array and an object.
    'cac:PartyTaxScheme': taxScheme && role === 'seller' ? [taxScheme] : taxScheme,
    'cac:PartyLegalEntity': compact({ 'cbc:RegistrationName': p.name.trim(), 'cbc:CompanyID': text(p.company_id) }),
    'cac:Contact':
      text(p.email) || text(p.phone) ? compact({ 'cbc:Telephone': text(p.phone), 'cbc:ElectronicMail': text(p.email) }) : undefined,
  });
}

function taxCategoryOf(rate: string): Json {
  return { 'cbc:ID': taxCategory(rate), 'cbc:Percent': plain(rate), 'cac:TaxScheme': { 'cbc:ID': 'VAT' } };
}

function invoiceLine(line: DocumentLine, index: number, currency: string): Json {
  const unit = unitCode(line.unit);
  const n = netLine(line);
  const allowance = n.allowance.isZero()
    ? undefined
    : [
        {
          'cbc:ChargeIndicator': 'false',
          'cbc:AllowanceChargeReasonCode': '95',
          'cbc:AllowanceChargeReason': `Discount ${plain(line.discount)}%`,
          'cbc:Amount': cents(n.allowance),
          'cbc:Amount@currencyID': currency,
        },
      ];
  return compact({
    'cbc:ID': String(index + 1),
    'cbc:InvoicedQuantity': plain(line.quantity),
    'cbc:InvoicedQuantity@unitCode': unit,
    'cbc:LineExtensionAmount': cents(line.subtotal),
    'cbc:LineExtensionAmount@currencyID': currency,
    'cac:AllowanceCharge': allowance,
    'cac:Item': compact({
      'cbc:Description': text(line.description),
      'cbc:Name': text(line.name) ?? 'Item',
      'cac:SellersItemIdentification': text(line.sku) ? { 'cbc:ID': text(line.sku) } : undefined,
      'cac:ClassifiedTaxCategory': taxCategoryOf(line.tax_rate),
    }),
    'cac:Price': compact({
      'cbc:PriceAmount': plain(n.price),
      'cbc:PriceAmount@currencyID': currency,
      'cbc:BaseQuantity': n.baseQuantity.eq(1) ? undefined : plain(n.baseQuantity),
      'cbc:BaseQuantity@unitCode': n.baseQuantity.eq(1) ? undefined : unit,
    }),
  });
}

/** Lines grouped by tax category and rate (BG-23): taxable amount and tax as the service summed them. */
export function taxBreakdown(lines: readonly DocumentLine[]): { category: 'S' | 'Z'; rate: string; taxable: Dec; tax: Dec }[] {
  const groups = new Map<string, { category: 'S' | 'Z'; rate: string; taxable: Dec; tax: Dec }>();
  for (const line of lines) {
    const rate = plain(line.tax_rate);
    const key = `${taxCategory(rate)}:${rate}`;
    const group = groups.get(key) ?? { category: taxCategory(rate), rate, taxable: dec(0), tax: dec(0) };
    group.taxable = group.taxable.plus(dec(line.subtotal));
    group.tax = group.tax.plus(dec(line.tax_amount));
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => dec(b.rate).comparedTo(dec(a.rate)));
}

/**
 * BR-CO-17: a category's tax must be its taxable amount times its rate, rounded to cents, give or
 * take less than one currency unit (the UBL rules test |difference| < 1, the CII ones <= 1; the
 * stricter holds for both); a zero rate's tax must round to zero. The service rounds each line's
 * tax to cents, and those roundings add up, up to half a cent per line, whether prices include tax
 * or not (500 lines at 1.00 including 20 % carry 85.00 tax on 415.00, where 20 % is 83.00). Such a
 * document cannot be a valid e-invoice; this says why for each category that fails, empty if none.
 */
export function taxRoundingProblems(lines: readonly DocumentLine[], currency: string): string[] {
  return taxBreakdown(lines).flatMap((g) => {
    const expected = g.taxable.abs().times(dec(g.rate).div(100)).toDecimalPlaces(2);
    const off = g.tax.abs().minus(expected).abs();
    const ok = dec(g.rate).isZero() ? g.tax.abs().lt(0.5) : off.lt(1);
    if (ok) return [];
    return [
      `the ${plain(g.rate)} % lines carry ${cents(g.tax)} ${currency} of tax summed line by line, while ${plain(g.rate)} % of their ${cents(g.taxable)} is ${cents(expected)}: ` +
        `${cents(off)} apart, and EN 16931 (BR-CO-17) accepts less than 1.00 (each line's tax is rounded to cents and over many lines the roundings add up; split the invoice into smaller ones)`,
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
 * CII and Factur-X. Amounts are the service's own: the lines' subtotals, taxes and totals, so the
 * e-invoice says exactly what the PDF and the ledger say.
 */
export function invoiceData(doc: RenderableDocument): Invoice {
  const currency = doc.currency.toUpperCase();
  const subtotal = dec(doc.totals.subtotal);
  const paid = dec(doc.amount_paid);
  const total = dec(doc.totals.total);
  const account = payeeAccount(doc);
  const credit = creditNoteKinds.includes(doc.kind);
  const breakdown = taxBreakdown(doc.lines);
  const data = compact({
    'cbc:CustomizationID': EN16931_CUSTOMIZATION_ID,
    'cbc:ID': doc.number,
    'cbc:IssueDate': doc.issue_date,
    // BT-9 is when the buyer pays; a credit note's date of refund is in its payment terms instead.
    'cbc:DueDate': credit ? undefined : (doc.due_date ?? undefined),
    'cbc:InvoiceTypeCode': documentTypeCode(doc.kind),
    'cbc:Note': text(doc.notes) ? [text(doc.notes)] : undefined,
    'cbc:DocumentCurrencyCode': currency,
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
    'cac:AccountingSupplierParty': { 'cac:Party': party(doc.seller, 'seller') },
    'cac:AccountingCustomerParty': { 'cac:Party': party(doc.buyer, 'buyer') },
    // A credit note states no payment means: the payment instructions (BG-16) tell the buyer how to pay.
    'cac:PaymentMeans': credit
      ? undefined
      : [
          compact({
            'cbc:PaymentMeansCode': paymentMeansCode(doc),
            'cbc:PaymentID': doc.number,
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
    'cac:TaxTotal': [
      {
        'cbc:TaxAmount': cents(doc.totals.tax_amount),
        'cbc:TaxAmount@currencyID': currency,
        'cac:TaxSubtotal': breakdown.map((g) => ({
          'cbc:TaxableAmount': cents(g.taxable),
          'cbc:TaxableAmount@currencyID': currency,
          'cbc:TaxAmount': cents(g.tax),
          'cbc:TaxAmount@currencyID': currency,
          'cac:TaxCategory': taxCategoryOf(g.rate),
        })),
      },
    ],
    'cac:LegalMonetaryTotal': compact({
      'cbc:LineExtensionAmount': cents(subtotal),
      'cbc:LineExtensionAmount@currencyID': currency,
      'cbc:TaxExclusiveAmount': cents(subtotal),
      'cbc:TaxExclusiveAmount@currencyID': currency,
      'cbc:TaxInclusiveAmount': cents(total),
      'cbc:TaxInclusiveAmount@currencyID': currency,
      'cbc:PrepaidAmount': paid.isZero() ? undefined : cents(paid),
      'cbc:PrepaidAmount@currencyID': paid.isZero() ? undefined : currency,
      'cbc:PayableAmount': cents(total.minus(paid)),
      'cbc:PayableAmount@currencyID': currency,
    }),
    'cac:InvoiceLine': doc.lines.map((line, i) => invoiceLine(line, i, currency)),
  });
  return { 'ubl:Invoice': data } as unknown as Invoice;
}
