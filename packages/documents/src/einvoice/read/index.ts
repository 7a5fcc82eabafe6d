export * from './model';
export { parseXml, XmlRefused, DEFAULT_XML_LIMITS, type XmlElement, type XmlLimits, type XmlRefusalReason } from './xml';
export { extractFacturXml, isPdf, DEFAULT_PDF_LIMITS, type PdfLimits } from './facturx-extract';
export { readEInvoice, type ReadEInvoice, type ReceivedFileSyntax } from './read';
