import PDFDocument from 'pdfkit';
import { dec, defaultCategory, printCreditorReference, vatexCode, type Dec, type VatBreakdown, type VatCategory } from '@bo/kernel';
import { payeeAccount } from '../einvoice/invoice-data';
import { pngProblem } from '@bo/contracts';
import { creditNoteKinds, type Party, type RenderableDocument, type RenderOptions } from '../model';
import { documentTaxes, type DocumentTaxes } from '../taxes';
import { loadFonts, undrawable } from './fonts';
import { formatter, type Formatter } from './format';
import { girocodeModules, girocodePayload } from './girocode';
import { documentInfo, documentTitle } from './info';

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const CONTENT = A4.width - 2 * MARGIN;
/** Where body content stops; the footer lives below. */
const BODY_BOTTOM = A4.height - 90;
const GREY = '#666666';
const RULE = '#cccccc';

/** The lines table: description takes what the figures leave. */
const columns = [
  { key: 'item', label: 'Item', width: 175, align: 'left' },
  { key: 'qty', label: 'Qty', width: 45, align: 'right' },
  { key: 'unit', label: 'Unit', width: 40, align: 'left' },
  { key: 'price', label: 'Price', width: 70, align: 'right' },
  { key: 'discount', label: 'Disc.', width: 40, align: 'right' },
  { key: 'tax', label: 'Tax', width: 40, align: 'right' },
  { key: 'total', label: 'Net amount', width: 85, align: 'right' },
] as const;
type ColumnKey = (typeof columns)[number]['key'];

type Doc = PDFKit.PDFDocument;
type Warn = NonNullable<RenderOptions['warn']>;

/** A party's address as printed: street lines, postal code and city, region and country. */
export function addressLines(p: Party): string[] {
  const cityLine = [p.postal_code, p.city].filter((v) => v && v.trim()).join(' ');
  return [
    ...(p.address_lines ?? []).filter((l): l is string => !!l && l.trim() !== ''),
    cityLine,
    [p.region, p.country].filter((v) => v && v.trim()).join(', '),
  ].filter((l) => l !== '');
}

function partyBlock(doc: Doc, label: string, p: Party, x: number, y: number, width: number): number {
  doc.font('bold').fontSize(8).fillColor(GREY).text(label.toUpperCase(), x, y, { width });
  doc.font('bold').fontSize(10).fillColor('black').text(p.name, { width });
  if (p.trading_name && p.trading_name !== p.name) doc.font('regular').fontSize(9).text(p.trading_name, { width });
  doc.font('regular').fontSize(9);
  for (const line of addressLines(p)) doc.text(line, { width });
  if (p.vat_id) doc.text(`VAT: ${p.vat_id}`, { width });
  if (p.company_id) doc.text(`Company id: ${p.company_id}`, { width });
  if (p.email) doc.text(p.email, { width });
  if (p.phone) doc.text(p.phone, { width });
  return doc.y;
}

/**
 * The logo when PDFKit can draw it safely, else null with the warning said. The profile checks a
 * logo when it is set, but one stored before that check could still be bad, and PDFKit decodes
 * some PNGs in a zlib callback that takes the process down on bad data: it is checked again here.
 */
function drawableLogo(d: RenderableDocument, warn: Warn): Buffer | null {
  if (!d.logo_png || d.logo_png.length === 0) return null;
  const problem = pngProblem(d.logo_png);
  if (problem) {
    warn(`the organization's logo is left out of ${d.number}: it ${problem}`);
    return null;
  }
  return Buffer.from(d.logo_png);
}

function header(doc: Doc, d: RenderableDocument, f: Formatter, warn: Warn): number {
  let top = MARGIN;
  const logo = drawableLogo(d, warn);
  if (logo) doc.image(logo, MARGIN, top, { fit: [140, 60] });
  // The issuer's block sits top right, as on a letterhead.
  const issuerBottom = partyBlock(doc, 'From', d.seller, MARGIN + CONTENT / 2 + 20, top, CONTENT / 2 - 20);
  top = Math.max(top + 70, issuerBottom + 15);

  doc
    .font('bold')
    .fontSize(20)
    .fillColor('black')
    .text(`${marking(d) ? `${marking(d)} ` : ''}${documentTitle(d.kind)}`, MARGIN, top, { width: CONTENT / 2 });
  doc
    .font('regular')
    .fontSize(11)
    .text(d.number, { width: CONTENT / 2 });
  const meta: [string, string][] = [['Date', f.date(d.issue_date)]];
  if (d.due_date) meta.push(['Due date', f.date(d.due_date)]);
  if (d.valid_until) meta.push(['Valid until', f.date(d.valid_until)]);
  if (d.reference) meta.push(['Reference', d.reference]);
  if (d.credited_invoice) {
    const on = d.credited_invoice.issue_date ? ` of ${f.date(d.credited_invoice.issue_date)}` : '';
    meta.push(['Credits invoice', `${d.credited_invoice.number}${on}`]);
  }
  if (d.currency) meta.push(['Currency', d.currency.toUpperCase()]);
  doc.moveDown(0.5).fontSize(9);
  for (const [label, value] of meta) {
    const y = doc.y;
    doc.fillColor(GREY).text(label, MARGIN, y, { width: 90 });
    doc.fillColor('black').text(value, MARGIN + 90, y, { width: CONTENT / 2 - 90 });
  }
  const metaBottom = doc.y;
  const buyerBottom = partyBlock(doc, 'Bill to', d.buyer, MARGIN + CONTENT / 2 + 20, top, CONTENT / 2 - 20);
  return Math.max(metaBottom, buyerBottom) + 20;
}

function tableHeader(doc: Doc, y: number): number {
  let x = MARGIN;
  doc.font('bold').fontSize(8).fillColor(GREY);
  for (const c of columns) {
    doc.text(c.label, x + 2, y, { width: c.width - 4, align: c.align });
    x += c.width;
  }
  const bottom = y + 14;
  doc
    .moveTo(MARGIN, bottom)
    .lineTo(MARGIN + CONTENT, bottom)
    .strokeColor(RULE)
    .lineWidth(0.7)
    .stroke();
  return bottom + 5;
}

/**
 * How the PDF names a VAT category beside its rate: S and Z go by their rate alone, as on every
 * document before categories; the others say what they are.
 */
const CATEGORY_LABELS: Readonly<Record<VatCategory, string>> = {
  S: '',
  Z: '',
  E: 'Exempt',
  AE: 'Reverse charge',
  K: 'Intra-community supply',
  G: 'Export',
  O: 'Outside the scope of VAT',
  L: 'IGIC',
  M: 'IPSI',
};

/** `20 %`, `Reverse charge 0 %`, `Outside the scope of VAT` (O has no rate). */
function categoryLabel(category: VatCategory, rate: Dec, f: Formatter): string {
  return [CATEGORY_LABELS[category], category === 'O' ? '' : f.percent(rate.toFixed())].filter(Boolean).join(' ');
}

/** The tax column of a row: its rate, with its category code when that is not the one its rate implies (`AE 0 %`). */
function taxCell(category: VatCategory, rate: Dec, f: Formatter): string {
  const percent = f.percent(rate.toFixed());
  return category === defaultCategory(rate) ? percent : `${category} ${percent}`;
}

function lineCells(
  line: RenderableDocument['lines'][number],
  t: DocumentTaxes['lines'][number],
  f: Formatter,
  places: number,
): Record<ColumnKey, string> {
  return {
    item: line.name,
    qty: f.number(line.quantity),
    unit: line.unit ?? '',
    price: `${f.price(line.price)}${line.tax_included ? ' *' : ''}`,
    discount: dec(line.discount).isZero() ? '' : f.percent(line.discount),
    tax: taxCell(t.tax_category, t.tax_rate, f),
    total: f.money(t.net.toFixed(places)),
  };
}

/** An allowance (BG-20) or charge (BG-21) as a row of the lines table: its reason, how it was made, its VAT and its amount, signed as it moves the total. */
function allowanceChargeCells(
  ac: DocumentTaxes['allowances_charges'][number],
  f: Formatter,
  places: number,
): { cells: Record<ColumnKey, string>; details: string } {
  const kind = ac.charge ? 'Charge' : 'Allowance';
  const made = ac.percent && ac.base_amount ? `${f.percent(ac.percent.toFixed())} of ${f.money(ac.base_amount.toFixed(places))}` : '';
  return {
    cells: {
      item: ac.reason ?? `${kind} ${ac.reason_code ?? ''}`.trim(),
      qty: '',
      unit: '',
      price: '',
      discount: '',
      tax: taxCell(ac.tax_category, ac.tax_rate, f),
      total: f.money((ac.charge || ac.amount.isZero() ? ac.amount : ac.amount.neg()).toFixed(places)),
    },
    details: [kind, ac.reason && ac.reason_code ? `code ${ac.reason_code}` : '', made].filter(Boolean).join(' · '),
  };
}

/** A new page for the lines table: which document it continues, then the table header again. */
function continuedTablePage(doc: Doc, d: RenderableDocument): number {
  doc.addPage();
  // A loose page still says which document it belongs to.
  doc
    .font('regular')
    .fontSize(8)
    .fillColor(GREY)
    .text(`${documentTitle(d.kind)} ${d.number} (continued)`, MARGIN, MARGIN, { width: CONTENT });
  return tableHeader(doc, MARGIN + 18);
}

const DETAIL_SIZE = 7.5;

/**
 * The longest start of `text` that fits in `height` points at the details' size, cut after a
 * space or line break when there is one in its second half; the rest is what remains.
 */
function fitDetails(doc: Doc, text: string, width: number, height: number): [string, string] {
  doc.font('regular').fontSize(DETAIL_SIZE);
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (doc.heightOfString(text.slice(0, mid), { width }) <= height) lo = mid;
    else hi = mid - 1;
  }
  const cut = Math.max(text.lastIndexOf(' ', lo), text.lastIndexOf('\n', lo));
  const end = lo < text.length && cut > lo / 2 ? cut + 1 : lo;
  return [text.slice(0, end), text.slice(end).replace(/^\n/, '')];
}

function linesTable(doc: Doc, d: RenderableDocument, taxes: DocumentTaxes, f: Formatter, startY: number): number {
  let y = tableHeader(doc, startY);
  // Where the rows of a continuation page start: the space a row may take at most.
  const pageTop = MARGIN + 18 + 19;
  const itemWidth = columns[0].width - 4;
  const places = taxes.minor_unit;
  const rows = [
    ...d.lines.map((line, i) => ({
      cells: lineCells(line, taxes.lines[i]!, f, places),
      details: [line.sku ? `SKU ${line.sku}` : '', line.description ?? ''].filter((s) => s.trim() !== '').join(' · '),
    })),
    // The document's allowances and charges follow its lines, in the same columns.
    ...taxes.allowances_charges.map((ac) => allowanceChargeCells(ac, f, places)),
  ];
  for (const { cells, details } of rows) {
    // Every cell can wrap (a long unit, a price with many digits): the row is as tall as its tallest.
    doc.font('regular').fontSize(9);
    const heights = columns.map((c) => doc.heightOfString(cells[c.key], { width: c.width - 4 }));
    const nameHeight = heights[0]!;
    const cellsHeight = Math.max(...heights);
    doc.fontSize(DETAIL_SIZE);
    const detailHeight = details ? doc.heightOfString(details, { width: itemWidth }) : 0;
    const height = Math.max(nameHeight + detailHeight, cellsHeight) + 6;
    const fitsHere = y + height <= BODY_BOTTOM;
    // A row taller than a whole page starts here if its figures and a line of details fit, else on the next page.
    if (!fitsHere && (height <= BODY_BOTTOM - pageTop || y + Math.max(cellsHeight, nameHeight + 3 * DETAIL_SIZE) + 6 > BODY_BOTTOM)) {
      y = continuedTablePage(doc, d);
    }
    let x = MARGIN;
    for (const c of columns) {
      doc
        .font('regular')
        .fontSize(9)
        .fillColor('black')
        .text(cells[c.key], x + 2, y, { width: c.width - 4, align: c.align });
      x += c.width;
    }
    let bottom = y + cellsHeight;
    // Details flow down the item column, continuing on as many pages as they need, under the table header each time.
    let rest = details;
    let top = y + nameHeight;
    while (rest) {
      const [part, remaining] = fitDetails(doc, rest, itemWidth, BODY_BOTTOM - 6 - top);
      if (part)
        doc
          .font('regular')
          .fontSize(DETAIL_SIZE)
          .fillColor(GREY)
          .text(part, MARGIN + 2, top, { width: itemWidth });
      bottom = Math.max(bottom, part ? top + doc.heightOfString(part, { width: itemWidth }) : top);
      rest = remaining;
      if (rest) {
        top = continuedTablePage(doc, d);
        bottom = top;
      }
    }
    y = bottom + 6;
    doc
      .moveTo(MARGIN, y - 2)
      .lineTo(MARGIN + CONTENT, y - 2)
      .strokeColor('#eeeeee')
      .lineWidth(0.5)
      .stroke();
  }
  if (d.lines.some((l) => l.tax_included)) {
    y = room(doc, y, 14);
    doc
      .font('regular')
      .fontSize(DETAIL_SIZE)
      .fillColor(GREY)
      .text('* price includes tax', MARGIN + 2, y + 2, { width: CONTENT });
    y = doc.y;
  }
  return y + 10;
}

/** Starts a new page when the next block of `height` points would run into the footer. */
function room(doc: Doc, y: number, height: number): number {
  if (y + height <= BODY_BOTTOM) return y;
  doc.addPage();
  return MARGIN;
}

/** The breakdown's left-hand columns: category and rate, taxable amount, VAT. */
const BREAKDOWN = [MARGIN, 110, 75, 65] as const;
const BREAKDOWN_WIDTH = BREAKDOWN[1] + BREAKDOWN[2] + BREAKDOWN[3];

/** What a category's row says under it: why no VAT is charged (BT-120) and the coded reason with its meaning (BT-121). */
function exemptionText(b: VatBreakdown): string {
  const code = b.exemption_code ? `${b.exemption_code}${vatexCode(b.exemption_code) ? `: ${vatexCode(b.exemption_code)!.name}` : ''}` : '';
  // The reason often repeats what the code means (`Reverse charge` and VATEX-EU-AE: Reverse charge): said once.
  const reason = b.exemption_reason && !code.toLowerCase().endsWith(`: ${b.exemption_reason.toLowerCase()}`) ? b.exemption_reason : '';
  return [reason, code].filter(Boolean).join(' · ');
}

/** Height of a breakdown row with the exemption under it. */
function breakdownRowHeight(doc: Doc, b: VatBreakdown, f: Formatter): number {
  doc.font('regular').fontSize(9);
  const label = doc.heightOfString(categoryLabel(b.tax_category, b.tax_rate, f), { width: BREAKDOWN[1] - 4 });
  const why = exemptionText(b);
  doc.fontSize(DETAIL_SIZE);
  return Math.max(label, 11) + (why ? doc.heightOfString(why, { width: BREAKDOWN_WIDTH }) : 0) + 2;
}

function summary(doc: Doc, d: RenderableDocument, taxes: DocumentTaxes, f: Formatter, startY: number): number {
  const places = taxes.minor_unit;
  const money = (value: Dec) => f.money(value.toFixed(places));
  const t = taxes.totals;
  const paid = dec(d.amount_paid);
  // A credit note is money the seller owes the reader: credited and refunded, never due.
  const credit = creditNoteKinds.includes(d.kind);
  const rows: [string, string, boolean][] = [['Subtotal', money(t.line_net_total), false]];
  if (!t.allowance_total.isZero()) rows.push(['Allowances', money(t.allowance_total.neg()), false]);
  if (!t.charge_total.isZero()) rows.push(['Charges', money(t.charge_total), false]);
  if (!t.allowance_total.isZero() || !t.charge_total.isZero()) rows.push(['Net total', money(t.tax_exclusive_amount), false]);
  rows.push(['Tax', money(t.tax_total), false]);
  // BT-114: what the printed rows (or cash rounding) add beyond the total with tax.
  if (!t.rounding_amount.isZero()) {
    rows.push(['Total with tax', money(t.tax_inclusive_amount), false]);
    rows.push(['Rounding', money(t.rounding_amount), false]);
  }
  rows.push([credit ? 'Amount credited' : 'Total', money(t.payable_amount), true]);
  if (!paid.isZero()) {
    rows.push([credit ? 'Refunded' : 'Paid', money(paid.negated()), false]);
    rows.push([credit ? 'Still to refund' : 'Amount due', money(t.payable_amount.minus(paid)), true]);
  }
  const accounting = d.accounting ?? null;
  if (accounting) {
    // BT-111: the VAT in the seller's accounting currency, at the document's rate.
    const af = formatter(accounting.currency, d.locale ?? undefined);
    rows.push([`Tax in ${accounting.currency}`, af.money(accounting.tax_total), false]);
  }
  const breakdownHeights = taxes.breakdown.map((b) => breakdownRowHeight(doc, b, f));
  const leftHeight = 13 + breakdownHeights.reduce((a, h) => a + h, 0);
  let y = room(doc, startY, Math.max(leftHeight, 13 + rows.length * 14 + (accounting ? 12 : 0)) + 20);
  // Tax summary per category and rate on the left, totals on the right, both under a header line.
  const [x0, w1, w2, w3] = BREAKDOWN;
  doc.font('bold').fontSize(8).fillColor(GREY);
  doc.text('Tax rate', x0, y, { width: w1 });
  doc.text('Taxable', x0 + w1, y, { width: w2, align: 'right' });
  doc.text('Tax', x0 + w1 + w2, y, { width: w3, align: 'right' });
  const rx = MARGIN + CONTENT - 220;
  const currency = d.currency.trim().toUpperCase();
  if (currency) doc.text(`Amounts in ${currency}`, rx, y, { width: 220, align: 'right' });
  let ly = y + 13;
  taxes.breakdown.forEach((b, i) => {
    doc.font('regular').fontSize(9).fillColor('black');
    doc.text(categoryLabel(b.tax_category, b.tax_rate, f), x0, ly, { width: w1 - 4 });
    const labelBottom = doc.y;
    doc.text(money(b.taxable_amount), x0 + w1, ly, { width: w2, align: 'right' });
    doc.text(money(b.tax_amount), x0 + w1 + w2, ly, { width: w3, align: 'right' });
    const why = exemptionText(b);
    if (why)
      doc
        .font('regular')
        .fontSize(DETAIL_SIZE)
        .fillColor(GREY)
        .text(why, x0, Math.max(labelBottom, ly + 11), { width: BREAKDOWN_WIDTH });
    ly += breakdownHeights[i]!;
  });
  y += 13;
  for (const [label, value, strong] of rows) {
    doc
      .font(strong ? 'bold' : 'regular')
      .fontSize(strong ? 10.5 : 9.5)
      .fillColor('black');
    doc.text(label, rx, y, { width: 110 });
    doc.text(value, rx + 110, y, { width: 110, align: 'right' });
    y += strong ? 17 : 14;
  }
  if (accounting) {
    doc
      .font('regular')
      .fontSize(DETAIL_SIZE)
      .fillColor(GREY)
      .text(`1 ${currency} = ${accounting.exchange_rate} ${accounting.currency}`, rx, y - 2, { width: 220, align: 'right' });
    y += 12;
  }
  return Math.max(ly, y) + 15;
}

function paymentAndNotes(doc: Doc, d: RenderableDocument, taxes: DocumentTaxes, f: Formatter, startY: number): void {
  const blocks: [string, string[]][] = [];
  const payment: string[] = [];
  if (d.payment_terms) payment.push(d.payment_terms);
  if (creditNoteKinds.includes(d.kind)) {
    // Nothing to pay: the seller refunds the amount or sets it against open invoices.
    const by = d.due_date ? ` by ${f.date(d.due_date)}` : '';
    payment.push(
      `Amount credited: ${f.money(taxes.totals.payable_amount.toFixed(taxes.minor_unit))}. Nothing to pay: it is refunded or set against open invoices${by}.`,
    );
    blocks.push(['Credit', payment]);
  } else {
    // The structured reference lets the seller's bank match the payment to this invoice by itself.
    const reference = d.payment_reference ? printCreditorReference(d.payment_reference) : null;
    const quoting = reference ?? d.number;
    if (d.due_date) payment.push(`Please pay by ${f.date(d.due_date)}, quoting ${quoting}.`);
    if (reference) payment.push(`Payment reference: ${reference}`);
    const account = payeeAccount(d);
    if (account?.iban) {
      payment.push(`IBAN: ${account.iban}${account.bic ? `   BIC: ${account.bic}` : ''}`);
      payment.push(`Account holder: ${account.name ?? d.seller.name}`);
    }
    if (payment.length > 0) blocks.push(['Payment', payment]);
  }
  if (d.notes) blocks.push(['Notes', [d.notes]]);
  let y = startY;
  for (const [label, lines] of blocks) {
    const body = lines.join('\n');
    doc.font('regular').fontSize(9);
    y = room(doc, y, doc.heightOfString(body, { width: CONTENT }) + 16);
    doc.font('bold').fontSize(8).fillColor(GREY).text(label.toUpperCase(), MARGIN, y, { width: CONTENT });
    doc.font('regular').fontSize(9).fillColor('black').text(body, { width: CONTENT });
    y = doc.y + 12;
  }
  const payload = invoiceGirocode(d, taxes);
  if (payload) drawGirocode(doc, payload, y);
}

/**
 * The EPC069-12 QR code ("GiroCode") of a EUR customer invoice in force with something due, paid
 * to the seller's IBAN: its banking app fills the transfer in (amount due, structured reference).
 */
export function invoiceGirocode(d: RenderableDocument, taxes: DocumentTaxes): string | null {
  const account = payeeAccount(d);
  if (d.kind !== 'invoice' || d.currency !== 'EUR' || d.draft || d.cancelled || !account?.iban) return null;
  return girocodePayload({
    bic: account.bic,
    name: account.name ?? d.seller.name,
    iban: account.iban,
    amount: taxes.totals.payable_amount.minus(dec(d.amount_paid)),
    purpose: 'GDSV',
    reference: d.payment_reference,
    text: d.payment_reference ? null : d.number,
  });
}

const GIROCODE_SIZE = 100;

/** The QR symbol drawn as squares (no image), four modules of quiet zone around it, its caption beside it. */
function drawGirocode(doc: Doc, payload: string, startY: number): void {
  const symbol = girocodeModules(payload);
  const module = GIROCODE_SIZE / (symbol.size + 8);
  const y = room(doc, startY, GIROCODE_SIZE + 8);
  doc.save().fillColor('black');
  for (let row = 0; row < symbol.size; row++) {
    for (let col = 0; col < symbol.size; col++) {
      if (symbol.dark(row, col)) doc.rect(MARGIN + (col + 4) * module, y + (row + 4) * module, module, module);
    }
  }
  doc.fill().restore();
  doc
    .font('regular')
    .fontSize(8)
    .fillColor(GREY)
    .text('Scan with your banking app to pay (GiroCode, EPC069-12).', MARGIN + GIROCODE_SIZE + 10, y + GIROCODE_SIZE / 2 - 5, {
      width: CONTENT - GIROCODE_SIZE - 10,
    });
  doc.fillColor('black');
}

/** What a document that is not (or no longer) in force says across every page. */
function marking(d: RenderableDocument): string | null {
  if (d.cancelled) return 'CANCELLED';
  return d.draft ? 'DRAFT' : null;
}

/** The marking across a page, drawn first so the content stays on top of it. */
function watermark(doc: Doc, mark: string): void {
  doc.save();
  doc.rotate(-35, { origin: [A4.width / 2, A4.height / 2] });
  doc
    .font('bold')
    .fontSize(mark.length > 5 ? 80 : 110)
    .fillColor('#e6e6e6');
  doc.text(mark, 0, A4.height / 2 - 60, { width: A4.width, align: 'center', lineBreak: false });
  doc.restore();
  doc.font('regular').fontSize(9).fillColor('black');
  doc.x = MARGIN;
  doc.y = MARGIN;
}

/** Footer and page numbers, drawn once every page exists (buffered pages). */
function finishPages(doc: Doc, d: RenderableDocument): void {
  const range = doc.bufferedPageRange();
  const footer = [
    d.seller.name,
    d.seller.vat_id ? `VAT ${d.seller.vat_id}` : '',
    d.seller.company_id ?? '',
    d.seller.email ?? '',
    d.seller.phone ?? '',
  ]
    .filter((s) => s.trim() !== '')
    .join(' · ');
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Text below the bottom margin would start a new page; the footer is placed outside the flow.
    const bottomMargin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .moveTo(MARGIN, A4.height - 60)
      .lineTo(MARGIN + CONTENT, A4.height - 60)
      .strokeColor(RULE)
      .lineWidth(0.5)
      .stroke();
    doc.font('regular').fontSize(7.5).fillColor(GREY);
    doc.text(footer, MARGIN, A4.height - 52, { width: CONTENT - 80, lineBreak: false, ellipsis: true });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN + CONTENT - 80, A4.height - 52, {
      width: 80,
      align: 'right',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottomMargin;
  }
}

/**
 * The document as an A4 PDF a person is glad to receive. Deterministic: the same input gives the
 * same bytes (creation and modification dates are the document date, the file id derives from them,
 * fonts are subset with stable tags), so tests and caches can compare renders.
 */
export function renderPdf(d: RenderableDocument, options: RenderOptions = {}): Promise<Buffer> {
  const warn = options.warn ?? (() => undefined);
  const f = formatter(d.currency.toUpperCase(), d.locale ?? undefined);
  const info = documentInfo(d);
  const doc = new PDFDocument({
    size: 'A4',
    // The bottom margin is where the body stops: text that flows on (long notes) breaks to a new page above the footer.
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: A4.height - BODY_BOTTOM },
    bufferPages: true,
    autoFirstPage: true,
    info: {
      Title: info.title,
      Author: info.author,
      Subject: info.subject,
      Creator: info.creator,
      Producer: info.producer,
      CreationDate: info.date,
      ModDate: info.date,
    },
    lang: 'en',
    displayTitle: true,
  });
  const { regular, bold } = loadFonts();
  for (const u of undrawable(d))
    warn(
      `${u.field} of ${d.number} holds characters the embedded fonts cannot draw (${u.characters.join(' ')}): the PDF shows them as empty boxes`,
    );
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  doc.font('regular');
  const mark = marking(d);
  if (mark) {
    watermark(doc, mark);
    doc.on('pageAdded', () => watermark(doc, mark));
  }

  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const taxes = documentTaxes(d);
  let y = header(doc, d, f, warn);
  y = linesTable(doc, d, taxes, f, y);
  y = summary(doc, d, taxes, f, y);
  paymentAndNotes(doc, d, taxes, f, y);
  finishPages(doc, d);
  doc.end();
  return done;
}
