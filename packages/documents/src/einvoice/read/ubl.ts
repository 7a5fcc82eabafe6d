import {
  CREDIT_NOTE_TYPE_CODES,
  type ReceivedAllowanceCharge,
  type ReceivedId,
  type ReceivedInvoice,
  type ReceivedLine,
  type ReceivedParty,
} from './model';
import { child, childrenNamed, textAt, type XmlElement } from './xml';

/** UBL 2.1 Invoice or CreditNote (EN 16931 UBL syntax binding) → the neutral model. */

const idOf = (el: XmlElement | undefined): ReceivedId | undefined => {
  const id = el?.text.trim();
  return id ? { id, ...(el!.attrs.schemeID ? { scheme: el!.attrs.schemeID } : {}) } : undefined;
};

function party(p: XmlElement | undefined): ReceivedParty {
  const taxSchemes = childrenNamed(p, 'PartyTaxScheme');
  const vat = taxSchemes.find((t) => textAt(t, 'TaxScheme', 'ID') === 'VAT');
  const other = taxSchemes.find((t) => textAt(t, 'TaxScheme', 'ID') !== 'VAT');
  const address = child(p, 'PostalAddress');
  return {
    name: textAt(p, 'PartyLegalEntity', 'RegistrationName'),
    trading_name: textAt(p, 'PartyName', 'Name'),
    identifiers: childrenNamed(p, 'PartyIdentification').flatMap((i) => idOf(child(i, 'ID')) ?? []),
    legal_registration_id: idOf(child(p, 'PartyLegalEntity', 'CompanyID')),
    vat_id: textAt(vat, 'CompanyID'),
    tax_registration_id: textAt(other, 'CompanyID'),
    endpoint_id: idOf(child(p, 'EndpointID')),
    address: {
      line1: textAt(address, 'StreetName'),
      line2: textAt(address, 'AdditionalStreetName'),
      city: textAt(address, 'CityName'),
      postcode: textAt(address, 'PostalZone'),
      subdivision: textAt(address, 'CountrySubentity'),
      country: textAt(address, 'Country', 'IdentificationCode'),
    },
  };
}

function allowanceCharge(ac: XmlElement): ReceivedAllowanceCharge {
  return {
    charge: textAt(ac, 'ChargeIndicator') === 'true',
    amount: textAt(ac, 'Amount') ?? '',
    base_amount: textAt(ac, 'BaseAmount'),
    percent: textAt(ac, 'MultiplierFactorNumeric'),
    vat_category: textAt(ac, 'TaxCategory', 'ID'),
    vat_rate: textAt(ac, 'TaxCategory', 'Percent'),
    reason: textAt(ac, 'AllowanceChargeReason'),
    reason_code: textAt(ac, 'AllowanceChargeReasonCode'),
  };
}

function line(l: XmlElement): ReceivedLine {
  const quantity = child(l, 'InvoicedQuantity') ?? child(l, 'CreditedQuantity');
  const item = child(l, 'Item');
  const price = child(l, 'Price');
  const priceAc = child(price, 'AllowanceCharge');
  const period = child(l, 'InvoicePeriod');
  const baseQuantity = child(price, 'BaseQuantity');
  return {
    id: textAt(l, 'ID') ?? '',
    note: textAt(l, 'Note'),
    quantity: quantity?.text.trim() ?? '',
    unit: quantity?.attrs.unitCode,
    net_amount: textAt(l, 'LineExtensionAmount') ?? '',
    order_line_reference: textAt(l, 'OrderLineReference', 'LineID'),
    accounting_reference: textAt(l, 'AccountingCost'),
    period: period ? { start: textAt(period, 'StartDate'), end: textAt(period, 'EndDate') } : undefined,
    allowances_charges: childrenNamed(l, 'AllowanceCharge').map(allowanceCharge),
    net_price: textAt(price, 'PriceAmount') ?? '',
    price_discount: textAt(priceAc, 'Amount'),
    gross_price: textAt(priceAc, 'BaseAmount'),
    base_quantity: baseQuantity?.text.trim() || undefined,
    base_quantity_unit: baseQuantity?.attrs.unitCode,
    vat_category: textAt(item, 'ClassifiedTaxCategory', 'ID'),
    vat_rate: textAt(item, 'ClassifiedTaxCategory', 'Percent'),
    name: textAt(item, 'Name'),
    description: textAt(item, 'Description'),
    seller_item_id: textAt(item, 'SellersItemIdentification', 'ID'),
    buyer_item_id: textAt(item, 'BuyersItemIdentification', 'ID'),
    standard_id: idOf(child(item, 'StandardItemIdentification', 'ID')),
  };
}

export function readUbl(root: XmlElement): ReceivedInvoice {
  const creditNote = root.local === 'CreditNote';
  const typeCode = textAt(root, creditNote ? 'CreditNoteTypeCode' : 'InvoiceTypeCode');
  const currency = textAt(root, 'DocumentCurrencyCode');
  const taxCurrency = textAt(root, 'TaxCurrencyCode');
  const taxTotals = childrenNamed(root, 'TaxTotal');
  const taxIn = (cur: string | undefined) => taxTotals.map((t) => child(t, 'TaxAmount')).find((a) => a && a.attrs.currencyID === cur);
  // BT-110 is the TaxTotal in the document currency (the one with subtotals when both currencies agree).
  const docTax = taxIn(currency) ?? child(taxTotals[0], 'TaxAmount');
  const accountingTax = taxCurrency && taxCurrency !== currency ? taxIn(taxCurrency) : undefined;
  const breakdownTotal = taxTotals.find((t) => childrenNamed(t, 'TaxSubtotal').length > 0);
  const totals = child(root, 'LegalMonetaryTotal');
  const means = child(root, 'PaymentMeans');
  const account = child(means, 'PayeeFinancialAccount');
  return {
    syntax: 'ubl',
    kind: creditNote || (typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode)) ? 'credit_note' : 'invoice',
    customization_id: textAt(root, 'CustomizationID'),
    profile_id: textAt(root, 'ProfileID'),
    number: textAt(root, 'ID'),
    issue_date: textAt(root, 'IssueDate'),
    type_code: typeCode,
    currency,
    tax_currency: taxCurrency,
    due_date: textAt(root, 'DueDate') ?? textAt(means, 'PaymentDueDate'),
    buyer_reference: textAt(root, 'BuyerReference'),
    order_reference: textAt(root, 'OrderReference', 'ID'),
    payment_terms: textAt(root, 'PaymentTerms', 'Note'),
    notes: childrenNamed(root, 'Note').flatMap((n) => n.text.trim() || []),
    preceding_invoices: childrenNamed(root, 'BillingReference').flatMap((b) => {
      const number = textAt(b, 'InvoiceDocumentReference', 'ID');
      return number ? [{ number, issue_date: textAt(b, 'InvoiceDocumentReference', 'IssueDate') }] : [];
    }),
    seller: party(child(root, 'AccountingSupplierParty', 'Party')),
    buyer: party(child(root, 'AccountingCustomerParty', 'Party')),
    payment: {
      means_code: textAt(means, 'PaymentMeansCode'),
      reference: textAt(means, 'PaymentID'),
      iban: textAt(account, 'ID'),
      account_name: textAt(account, 'Name'),
      bic: textAt(account, 'FinancialInstitutionBranch', 'ID'),
    },
    allowances_charges: childrenNamed(root, 'AllowanceCharge').map(allowanceCharge),
    totals: {
      line_extension: textAt(totals, 'LineExtensionAmount'),
      allowances: textAt(totals, 'AllowanceTotalAmount'),
      charges: textAt(totals, 'ChargeTotalAmount'),
      tax_exclusive: textAt(totals, 'TaxExclusiveAmount'),
      tax: docTax?.text.trim() || undefined,
      tax_accounting: accountingTax?.text.trim() ? { amount: accountingTax.text.trim(), currency: taxCurrency! } : undefined,
      tax_inclusive: textAt(totals, 'TaxInclusiveAmount'),
      prepaid: textAt(totals, 'PrepaidAmount'),
      rounding: textAt(totals, 'PayableRoundingAmount'),
      payable: textAt(totals, 'PayableAmount'),
    },
    vat_breakdown: childrenNamed(breakdownTotal, 'TaxSubtotal').map((s) => ({
      taxable_amount: textAt(s, 'TaxableAmount') ?? '',
      tax_amount: textAt(s, 'TaxAmount') ?? '',
      category: textAt(s, 'TaxCategory', 'ID') ?? '',
      rate: textAt(s, 'TaxCategory', 'Percent'),
      exemption_reason: textAt(s, 'TaxCategory', 'TaxExemptionReason'),
      exemption_reason_code: textAt(s, 'TaxCategory', 'TaxExemptionReasonCode'),
    })),
    lines: childrenNamed(root, creditNote ? 'CreditNoteLine' : 'InvoiceLine').map(line),
  };
}
