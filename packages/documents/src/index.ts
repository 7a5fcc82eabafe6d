export * from './model';
export { unitCode } from './units';
export { renderPdf } from './pdf/render-pdf';
export { renderStatementPdf, type StatementDocument } from './pdf/render-statement';
export { drawDocumentPdf, drawLetterPdf, drawStatementPdf } from './pdf/pool';
export { letterTitle, renderLetterPdf, type ReminderLetterDocument } from './pdf/render-letter';
export { documentTitle, documentInfo, type DocumentInfo } from './pdf/info';
export { renderUbl, renderCii, renderFacturX, renderPeppol, EInvoiceRefused, assertEInvoice } from './einvoice/render';
export { missingForEInvoice, eInvoiceRefusal, type EInvoiceProfile } from './einvoice/requirements';
export {
  invoiceData,
  documentTypeCode,
  taxCategory,
  paymentMeansCode,
  EN16931_CUSTOMIZATION_ID,
  PEPPOL_CUSTOMIZATION_ID,
  PEPPOL_PROFILE_ID,
} from './einvoice/invoice-data';
export { netLine } from './einvoice/net-line';
export { accountingCurrency, documentTaxes, documentCategories, type DocumentTaxes } from './taxes';
export { renderDocument, fileStem, type RenderedFile } from './render-document';
export {
  organizationParty,
  partnerParty,
  organizationLogo,
  sourceFieldNames,
  sellerSource,
  documentLines,
  refusalBody,
  type PartySource,
  type StoredDocumentLine,
  type RefusalBody,
} from './sources';
export * from './einvoice/read';
export {
  validateEInvoice,
  prepareEInvoiceRules,
  ruleSetsFor,
  PEPPOL_BIS3_CUSTOMIZATION,
  type RuleSet,
  type RuleFinding,
  type ValidationReport,
} from './einvoice/validate';
