import { PDFDict, PDFDocument, PDFHeader, PDFName, PDFRawStream, PDFRef, PDFString } from '@cantoo/pdf-lib';
import type { RenderableDocument } from '../model';
import { documentInfo, documentTitle, type DocumentInfo } from '../pdf/info';

/** The PDF version Factur-X files are written in: PDF/A-3 is based on PDF 1.7 (and the file uses cross-reference streams, 1.5+). */
export const FACTURX_PDF_VERSION = '1.7';

/** The properties of a Factur-X file: the document's own, with the e-invoice library named as a producer too. */
export interface FacturXInfo extends DocumentInfo {
  keywords: string;
  pdfVersion: string;
}

export function facturXInfo(d: RenderableDocument): FacturXInfo {
  const info = documentInfo(d);
  return {
    ...info,
    producer: `${info.producer}, @e-invoice-eu/core`,
    keywords: `${documentTitle(d.kind)}, Factur-X, EN 16931`,
    pdfVersion: FACTURX_PDF_VERSION,
  };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An XMP date: the instant in UTC, to the second. */
export const xmpDate = (date: Date) => `${date.toISOString().slice(0, 19)}Z`;

/** One property of the Factur-X extension schema, which PDF/A requires to be declared in the file itself. */
const fxProperty = (name: string, description: string) => `
            <rdf:li rdf:parseType="Resource">
              <pdfaProperty:name>${name}</pdfaProperty:name>
              <pdfaProperty:valueType>Text</pdfaProperty:valueType>
              <pdfaProperty:category>external</pdfaProperty:category>
              <pdfaProperty:description>${description}</pdfaProperty:description>
            </rdf:li>`;

/**
 * The XMP metadata of a Factur-X (PDF/A-3B) file, profile EN 16931: every value the info dictionary
 * also holds is the same here (title, author, subject, keywords, creator tool, producer, dates, PDF
 * version), as PDF/A requires; the Factur-X properties name the attached factur-x.xml.
 */
export function facturXXmp(info: FacturXInfo): string {
  const x = (s: string) => escapeXml(s);
  const date = xmpDate(info.date);
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
      <pdfaid:part>3</pdfaid:part>
      <pdfaid:conformance>B</pdfaid:conformance>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:format>application/pdf</dc:format>
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${x(info.title)}</rdf:li></rdf:Alt></dc:title>
      <dc:creator><rdf:Seq><rdf:li>${x(info.author)}</rdf:li></rdf:Seq></dc:creator>
      <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${x(info.subject)}</rdf:li></rdf:Alt></dc:description>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
      <pdf:Producer>${x(info.producer)}</pdf:Producer>
      <pdf:Keywords>${x(info.keywords)}</pdf:Keywords>
      <pdf:PDFVersion>${x(info.pdfVersion)}</pdf:PDFVersion>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
      <xmp:CreatorTool>${x(info.creator)}</xmp:CreatorTool>
      <xmp:CreateDate>${date}</xmp:CreateDate>
      <xmp:ModifyDate>${date}</xmp:ModifyDate>
      <xmp:MetadataDate>${date}</xmp:MetadataDate>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/" xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#" xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
      <pdfaExtension:schemas>
        <rdf:Bag>
          <rdf:li rdf:parseType="Resource">
            <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
            <pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
            <pdfaSchema:prefix>fx</pdfaSchema:prefix>
            <pdfaSchema:property>
              <rdf:Seq>${fxProperty('DocumentFileName', 'The name of the embedded XML document')}${fxProperty(
                'DocumentType',
                'The type of the hybrid document in capital letters, e.g. INVOICE or ORDER',
              )}${fxProperty('Version', 'The actual version of the standard applying to the embedded XML document')}${fxProperty(
                'ConformanceLevel',
                'The conformance level of the embedded XML document',
              )}
              </rdf:Seq>
            </pdfaSchema:property>
          </rdf:li>
        </rdf:Bag>
      </pdfaExtension:schemas>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
      <fx:DocumentType>INVOICE</fx:DocumentType>
      <fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>
      <fx:Version>1.0</fx:Version>
      <fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>
    </rdf:Description>
  </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}

/**
 * Sets the metadata of the Factur-X file @e-invoice-eu/core made from the document's PDF, from the
 * document alone. The library stamps the clock into the info dictionary, the XMP and the attached
 * factur-x.xml's dates, says "Invoice" of a credit note, names different titles, producers and
 * creators in the info dictionary and the XMP, claims PDF 1.7 in the XMP under the 1.3 header of
 * the PDF it started from, and writes the XMP's non-Latin characters one byte each. Here the info
 * dictionary and the XMP (as UTF-8) get the same values (facturXInfo), every date is the document
 * date, and the header says 1.7; the same document thus always gives the same bytes.
 */
export async function finishFacturX(pdf: Uint8Array, d: RenderableDocument): Promise<Uint8Array> {
  const info = facturXInfo(d);
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  doc.setTitle(info.title, { showInWindowTitleBar: true });
  doc.setAuthor(info.author);
  doc.setSubject(info.subject);
  doc.setKeywords([info.keywords]);
  doc.setCreator(info.creator);
  doc.setProducer(info.producer);
  doc.setCreationDate(info.date);
  doc.setModificationDate(info.date);

  const context = doc.context;
  const metadata = context.stream(Buffer.from(facturXXmp(info), 'utf8'), { Type: 'Metadata', Subtype: 'XML' });
  const existing = doc.catalog.get(PDFName.of('Metadata'));
  // Replaced in place, so the library's XMP (with its clock time) is not left in the file as an unreferenced object.
  if (existing instanceof PDFRef) context.assign(existing, metadata);
  else doc.catalog.set(PDFName.of('Metadata'), context.register(metadata));

  // The attached factur-x.xml's own creation and modification dates.
  for (const [, object] of context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream) || object.dict.get(PDFName.of('Type')) !== PDFName.of('EmbeddedFile')) continue;
    const params = object.dict.lookupMaybe(PDFName.of('Params'), PDFDict);
    params?.set(PDFName.of('CreationDate'), PDFString.fromDate(info.date));
    params?.set(PDFName.of('ModDate'), PDFString.fromDate(info.date));
  }

  const [major, minor] = FACTURX_PDF_VERSION.split('.').map(Number);
  context.header = PDFHeader.forVersion(major!, minor!);
  return doc.save();
}
