import {
  CREDIT_NOTE_TYPE_CODES,
  type ReceivedAllowanceCharge,
  type ReceivedId,
  type ReceivedInvoice,
  type ReceivedLine,
  type ReceivedParty,
} from './model';
import { child, childrenNamed, textAt, type XmlElement } from './xml';

/** UN/CEFACT CII D16B CrossIndustryInvoice (EN 16931 CII syntax binding, Factur-X's XML) → the neutral model. */

const idOf = (el: XmlElement | undefined): ReceivedId | undefined => {
  const id = el?.text.trim();
  return id ? { id, ...(el!.attrs.schemeID ? { scheme: el!.attrs.schemeID } : {}) } : undefined;
};

/** A CII date (`DateTimeString format="102"`, YYYYMMDD) as YYYY-MM-DD; another format as written. */
function date(el: XmlElement | undefined): string | undefined {
  const s = textAt(el, 'DateTimeString');
  if (!s) return undefined;
  return /^\d{8}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}` : s;
}

function party(p: XmlElement | undefined): ReceivedParty {
  const registrations = childrenNamed(p, 'SpecifiedTaxRegistration').map((r) => child(r, 'ID'));
  const address = child(p, 'PostalTradeAddress');
  return {
    name: textAt(p, 'Name'),
    trading_name: textAt(p, 'SpecifiedLegalOrganization', 'TradingBusinessName'),
    identifiers: [...childrenNamed(p, 'ID'), ...childrenNamed(p, 'GlobalID')].flatMap((i) => idOf(i) ?? []),
    legal_registration_id: idOf(child(p, 'SpecifiedLegalOrganization', 'ID')),
    vat_id: registrations.find((r) => r?.attrs.schemeID === 'VA')?.text.trim() || undefined,
    tax_registration_id: registrations.find((r) => r?.attrs.schemeID === 'FC')?.text.trim() || undefined,
    endpoint_id: idOf(child(p, 'URIUniversalCommunication', 'URIID')),
    address: {
      line1: textAt(address, 'LineOne'),
      line2: textAt(address, 'LineTwo'),
      city: textAt(address, 'CityName'),
      postcode: textAt(address, 'PostcodeCode'),
      subdivision: textAt(address, 'CountrySubDivisionName'),
      country: textAt(address, 'CountryID'),
    },
  };
}

function allowanceCharge(ac: XmlElement): ReceivedAllowanceCharge {
  const tax = child(ac, 'CategoryTradeTax');
  return {
    charge: textAt(ac, 'ChargeIndicator', 'Indicator') === 'true',
    amount: textAt(ac, 'ActualAmount') ?? '',
    base_amount: textAt(ac, 'BasisAmount'),
    percent: textAt(ac, 'CalculationPercent'),
    vat_category: textAt(tax, 'CategoryCode'),
    vat_rate: textAt(tax, 'RateApplicablePercent'),
    reason: textAt(ac, 'Reason'),
    reason_code: textAt(ac, 'ReasonCode'),
  };
}

function line(l: XmlElement): ReceivedLine {
  const product = child(l, 'SpecifiedTradeProduct');
  const agreement = child(l, 'SpecifiedLineTradeAgreement');
  const gross = child(agreement, 'GrossPriceProductTradePrice');
  const net = child(agreement, 'NetPriceProductTradePrice');
  const quantity = child(l, 'SpecifiedLineTradeDelivery', 'BilledQuantity');
  const settlement = child(l, 'SpecifiedLineTradeSettlement');
  const period = child(settlement, 'BillingSpecifiedPeriod');
  const baseQuantity = child(net, 'BasisQuantity') ?? child(gross, 'BasisQuantity');
  return {
    id: textAt(l, 'AssociatedDocumentLineDocument', 'LineID') ?? '',
    note: textAt(l, 'AssociatedDocumentLineDocument', 'IncludedNote', 'Content'),
    quantity: quantity?.text.trim() ?? '',
    unit: quantity?.attrs.unitCode,
    net_amount: textAt(settlement, 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount') ?? '',
    order_line_reference: textAt(agreement, 'BuyerOrderReferencedDocument', 'LineID'),
    accounting_reference: textAt(settlement, 'ReceivableSpecifiedTradeAccountingAccount', 'ID'),
    period: period ? { start: date(child(period, 'StartDateTime')), end: date(child(period, 'EndDateTime')) } : undefined,
    allowances_charges: childrenNamed(settlement, 'SpecifiedTradeAllowanceCharge').map(allowanceCharge),
    net_price: textAt(net, 'ChargeAmount') ?? '',
    price_discount: textAt(gross, 'AppliedTradeAllowanceCharge', 'ActualAmount'),
    gross_price: textAt(gross, 'ChargeAmount'),
    base_quantity: baseQuantity?.text.trim() || undefined,
    base_quantity_unit: baseQuantity?.attrs.unitCode,
    vat_category: textAt(settlement, 'ApplicableTradeTax', 'CategoryCode'),
    vat_rate: textAt(settlement, 'ApplicableTradeTax', 'RateApplicablePercent'),
    name: textAt(product, 'Name'),
    description: textAt(product, 'Description'),
    seller_item_id: textAt(product, 'SellerAssignedID'),
    buyer_item_id: textAt(product, 'BuyerAssignedID'),
    standard_id: idOf(child(product, 'GlobalID')),
  };
}

export function readCii(root: XmlElement): ReceivedInvoice {
  const doc = child(root, 'ExchangedDocument');
  const context = child(root, 'ExchangedDocumentContext');
  const transaction = child(root, 'SupplyChainTradeTransaction');
  const agreement = child(transaction, 'ApplicableHeaderTradeAgreement');
  const settlement = child(transaction, 'ApplicableHeaderTradeSettlement');
  const sums = child(settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation');
  const typeCode = textAt(doc, 'TypeCode');
  const currency = textAt(settlement, 'InvoiceCurrencyCode');
  const taxCurrency = textAt(settlement, 'TaxCurrencyCode');
  const taxTotals = childrenNamed(sums, 'TaxTotalAmount');
  // BT-110 is the TaxTotalAmount in the document currency (or the one without a currency); BT-111 the one in BT-6.
  const docTax = taxTotals.find((t) => !t.attrs.currencyID || t.attrs.currencyID === currency);
  const accountingTax = taxCurrency && taxCurrency !== currency ? taxTotals.find((t) => t.attrs.currencyID === taxCurrency) : undefined;
  const means = child(settlement, 'SpecifiedTradeSettlementPaymentMeans');
  const account = child(means, 'PayeePartyCreditorFinancialAccount');
  const terms = child(settlement, 'SpecifiedTradePaymentTerms');
  return {
    syntax: 'cii',
    kind: typeCode !== undefined && CREDIT_NOTE_TYPE_CODES.has(typeCode) ? 'credit_note' : 'invoice',
    customization_id: textAt(context, 'GuidelineSpecifiedDocumentContextParameter', 'ID'),
    profile_id: textAt(context, 'BusinessProcessSpecifiedDocumentContextParameter', 'ID'),
    number: textAt(doc, 'ID'),
    issue_date: date(child(doc, 'IssueDateTime')),
    type_code: typeCode,
    currency,
    tax_currency: taxCurrency,
    due_date: date(child(terms, 'DueDateDateTime')),
    buyer_reference: textAt(agreement, 'BuyerReference'),
    order_reference: textAt(agreement, 'BuyerOrderReferencedDocument', 'IssuerAssignedID'),
    payment_terms: textAt(terms, 'Description'),
    notes: childrenNamed(doc, 'IncludedNote').flatMap((n) => textAt(n, 'Content') ?? []),
    preceding_invoices: childrenNamed(settlement, 'InvoiceReferencedDocument').flatMap((r) => {
      const number = textAt(r, 'IssuerAssignedID');
      return number ? [{ number, issue_date: date(child(r, 'FormattedIssueDateTime')) }] : [];
    }),
    seller: party(child(agreement, 'SellerTradeParty')),
    buyer: party(child(agreement, 'BuyerTradeParty')),
    payment: {
      means_code: textAt(means, 'TypeCode'),
      reference: textAt(settlement, 'PaymentReference'),
      iban: textAt(account, 'IBANID') ?? textAt(account, 'ProprietaryID'),
      account_name: textAt(account, 'AccountName'),
      bic: textAt(means, 'PayeeSpecifiedCreditorFinancialInstitution', 'BICID'),
    },
    allowances_charges: childrenNamed(settlement, 'SpecifiedTradeAllowanceCharge').map(allowanceCharge),
    totals: {
      line_extension: textAt(sums, 'LineTotalAmount'),
      allowances: textAt(sums, 'AllowanceTotalAmount'),
      charges: textAt(sums, 'ChargeTotalAmount'),
      tax_exclusive: textAt(sums, 'TaxBasisTotalAmount'),
      tax: docTax?.text.trim() || undefined,
      tax_accounting: accountingTax?.text.trim() ? { amount: accountingTax.text.trim(), currency: taxCurrency! } : undefined,
      tax_inclusive: textAt(sums, 'GrandTotalAmount'),
      prepaid: textAt(sums, 'TotalPrepaidAmount'),
      rounding: textAt(sums, 'RoundingAmount'),
      payable: textAt(sums, 'DuePayableAmount'),
    },
    vat_breakdown: childrenNamed(settlement, 'ApplicableTradeTax').map((t) => ({
      taxable_amount: textAt(t, 'BasisAmount') ?? '',
      tax_amount: textAt(t, 'CalculatedAmount') ?? '',
      category: textAt(t, 'CategoryCode') ?? '',
      rate: textAt(t, 'RateApplicablePercent'),
      exemption_reason: textAt(t, 'ExemptionReason'),
      exemption_reason_code: textAt(t, 'ExemptionReasonCode'),
    })),
    lines: childrenNamed(transaction, 'IncludedSupplyChainTradeLineItem').map(line),
  };
}
