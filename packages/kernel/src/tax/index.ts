/** VAT categories, exemptions, currencies and a document's tax calculation (docs/invoicing.md, "Taxes and rounding"). */
export * from './categories';
export * from './vatex';
export * from './currencies';
export * from './allowance-reasons';
export * from './document';
export * from './accounting';
export { categoryTaxOfRows, withinVatTolerance } from './calculate';
export { documentMinorUnit, finerThanCurrency } from './calculate';
export { decideDocumentTaxes, validateDocumentTaxes } from './decide';
