export * from './model';
export { unitCode } from './units';
export { renderPdf } from './pdf/render-pdf';
export { renderStatementPdf, type StatementDocument } from './pdf/render-statement';
export { drawDocumentPdf, drawStatementPdf } from './pdf/pool';
export { documentTitle, documentInfo, type DocumentInfo } from './pdf/info';
export { renderUbl, renderCii, renderFacturX, EInvoiceRefused, assertEInvoice } from './einvoice/render';
export { missingForEInvoice, eInvoiceRefusal } from './einvoice/requirements';
export { invoiceData, documentTypeCode, taxCategory, paymentMeansCode, EN16931_CUSTOMIZATION_ID } from './einvoice/invoice-data';
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
