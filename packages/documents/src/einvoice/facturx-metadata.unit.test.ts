import { AFRelationship, PDFDict, PDFDocument, PDFName, PDFRawStream } from '@cantoo/pdf-lib';
import { inflateSync } from 'node:zlib';
import { atClock, greekBuyer, sampleDocument } from '../../test/fixtures';
import { facturXInfo, facturXXmp, finishFacturX, xmpDate } from './facturx-metadata';

/** A PDF as the e-invoice library leaves it: the clock in its dates, its own title, an XMP, factur-x.xml attached, a 1.3 header. */
async function libraryLikePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage();
  const now = new Date();
  doc.setTitle('Acme Ltd: Invoice INV-000042');
  doc.setProducer('e-invoice-eu');
  doc.setCreationDate(now);
  doc.setModificationDate(now);
  await doc.attach(Buffer.from('<rsm:CrossIndustryInvoice/>'), 'factur-x.xml', {
    mimeType: 'text/xml',
    description: 'Factur-X',
    creationDate: now,
    modificationDate: now,
    afRelationship: AFRelationship.Alternative,
  });
  const xmp = doc.context.stream(`<x:xmpmeta><xmp:CreateDate>${now.toISOString()}</xmp:CreateDate></x:xmpmeta>`, {
    Type: 'Metadata',
    Subtype: 'XML',
  });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(xmp));
  const bytes = await doc.save();
  return Buffer.concat([Buffer.from('%PDF-1.3'), Buffer.from(bytes).subarray(8)]);
}

const streamText = (stream: PDFRawStream) => {
  const filter = stream.dict.get(PDFName.of('Filter'));
  const bytes = filter === PDFName.of('FlateDecode') ? inflateSync(stream.contents) : Buffer.from(stream.contents);
  return bytes.toString('utf8');
};

describe('facturXInfo', () => {
  test('names the document as its own PDF does, kind included, dated by the document', () => {
    const info = facturXInfo(sampleDocument('credit_note', { number: 'CRN-7' }));
    expect(info).toEqual({
      title: 'Credit note CRN-7',
      author: 'Acme Ltd',
      subject: 'Credit note CRN-7 for Ελληνική Εταιρεία Α.Ε.',
      keywords: 'Credit note, Factur-X, EN 16931',
      creator: 'backoffice',
      producer: 'backoffice (PDFKit), @e-invoice-eu/core',
      date: new Date('2026-11-02T00:00:00Z'),
      pdfVersion: '1.7',
    });
  });
});

describe('facturXXmp', () => {
  test('states the same values, escaped, and declares Factur-X EN 16931 with its extension schema', () => {
    const info = { ...facturXInfo(sampleDocument('invoice')), author: 'Smith & <Sons>' };
    const xmp = facturXXmp(info);
    expect(xmp).toContain('<dc:creator><rdf:Seq><rdf:li>Smith &amp; &lt;Sons&gt;</rdf:li></rdf:Seq></dc:creator>');
    expect(xmp).toContain(`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${info.title}</rdf:li></rdf:Alt></dc:title>`);
    expect(xmp).toContain(`<pdf:Producer>${info.producer}</pdf:Producer>`);
    expect(xmp).toContain('<pdf:PDFVersion>1.7</pdf:PDFVersion>');
    expect(xmp).toContain('<xmp:CreatorTool>backoffice</xmp:CreatorTool>');
    for (const tag of ['CreateDate', 'ModifyDate', 'MetadataDate']) expect(xmp).toContain(`<xmp:${tag}>2026-11-02T00:00:00Z</xmp:${tag}>`);
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>');
    expect(xmp.startsWith('<?xpacket begin="\uFEFF"')).toBe(true);
  });

  test('dates are UTC to the second', () => {
    expect(xmpDate(new Date('2026-11-02T00:00:00.000Z'))).toBe('2026-11-02T00:00:00Z');
  });
});

describe('finishFacturX', () => {
  const doc = sampleDocument('vendor_bill', { number: 'BILL-3', seller: { ...greekBuyer } });

  test('gives the info dictionary and the XMP the same values, the document date everywhere, and a 1.7 header', async () => {
    const input = await atClock('2031-05-05T10:11:12Z', libraryLikePdf);
    const out = await finishFacturX(input, doc);
    expect(Buffer.from(out).subarray(0, 8).toString()).toBe('%PDF-1.7');
    const read = await PDFDocument.load(out, { updateMetadata: false });
    const info = facturXInfo(doc);
    expect({
      title: read.getTitle(),
      author: read.getAuthor(),
      subject: read.getSubject(),
      keywords: read.getKeywords(),
      creator: read.getCreator(),
      producer: read.getProducer(),
      created: read.getCreationDate(),
      modified: read.getModificationDate(),
    }).toEqual({
      title: 'Vendor bill BILL-3',
      author: 'Ελληνική Εταιρεία Α.Ε.',
      subject: info.subject,
      keywords: info.keywords,
      creator: info.creator,
      producer: info.producer,
      created: info.date,
      modified: info.date,
    });
    // The XMP in UTF-8: a Greek seller reads as Greek, not one byte per character.
    const metadata = read.context.lookup(read.catalog.get(PDFName.of('Metadata')));
    if (!(metadata instanceof PDFRawStream)) throw new Error('no XMP metadata stream');
    const xmp = streamText(metadata);
    expect(xmp).toBe(facturXXmp(info));
    expect(xmp).toContain('<rdf:li>Ελληνική Εταιρεία Α.Ε.</rdf:li>');
    // The attached factur-x.xml is dated by the document too.
    const embedded = read.context
      .enumerateIndirectObjects()
      .map(([, o]) => o)
      .filter((o): o is PDFRawStream => o instanceof PDFRawStream && o.dict.get(PDFName.of('Type')) === PDFName.of('EmbeddedFile'));
    expect(embedded).toHaveLength(1);
    const params = embedded[0]!.dict.lookup(PDFName.of('Params'), PDFDict);
    for (const key of ['CreationDate', 'ModDate']) expect(params.get(PDFName.of(key))?.toString()).toBe('(D:20261102000000Z)');
    // Nothing of the clock the input was made at is left, not even the replaced XMP.
    const clocked = read.context
      .enumerateIndirectObjects()
      .filter(([, o]) => (o instanceof PDFRawStream ? streamText(o) : o.toString()).includes('2031'));
    expect(clocked).toEqual([]);
    expect(Buffer.from(out).toString('latin1')).not.toContain('2031');
  });

  test('the same document gives the same bytes, whatever the clock said when the input was made', async () => {
    const early = await atClock('2026-11-02T08:00:00Z', async () => finishFacturX(await libraryLikePdf(), doc));
    const late = await atClock('2031-05-05T10:11:12Z', async () => finishFacturX(await libraryLikePdf(), doc));
    expect(Buffer.from(early).equals(Buffer.from(late))).toBe(true);
  });
});
