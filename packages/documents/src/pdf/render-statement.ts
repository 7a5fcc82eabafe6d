import type { invoicing } from '@bo/contracts';
import PDFDocument from 'pdfkit';
import { loadFonts } from './fonts';
import { formatter } from './format';

/** A statement as the renderer draws it (the `statement` report, docs/invoicing.md "Statements"). */
export interface StatementDocument {
  partner: number;
  partnername: string | null;
  /** Which side of the partner's account: what it owes (`customer`) or what is owed to it (`vendor`). */
  side: invoicing.StatementSide;
  date_from: string;
  date_to: string;
  /** The currency of every balance; null: plain numbers. */
  currency: string | null;
  opening_balance: number;
  closing_balance: number;
  lines: ReadonlyArray<{
    date: string;
    kind: string;
    reference: string;
    debit: number;
    credit: number;
    balance: number;
  }>;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const CONTENT = A4.width - 2 * MARGIN;
const BODY_BOTTOM = A4.height - 70;
const GREY = '#666666';
const RULE = '#cccccc';

const columns = [
  { label: 'Date', width: 75, align: 'left' },
  { label: 'Movement', width: 65, align: 'left' },
  { label: 'Reference', width: 140, align: 'left' },
  { label: 'Debit', width: 65, align: 'right' },
  { label: 'Credit', width: 65, align: 'right' },
  { label: 'Balance', width: 85, align: 'right' },
] as const;

const KIND_LABELS: Readonly<Record<string, string>> = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  payment: 'Payment',
  allocation: 'Allocation',
  refund: 'Refund',
  void: 'Void',
  write_off: 'Write-off',
  exchange_difference: 'Exchange difference',
};

/**
 * A statement as an A4 PDF: who it is for, the period, the opening balance, one row per movement
 * with the running balance, the closing balance. Deterministic, like the documents' PDFs: dated by
 * `date_to`, not the clock, so the same statement gives the same bytes.
 */
export function renderStatementPdf(s: StatementDocument): Promise<Buffer> {
  const f = formatter(s.currency?.toUpperCase() ?? '');
  const date = new Date(`${s.date_to}T00:00:00Z`);
  const who = s.partnername ?? `Partner ${s.partner}`;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: A4.height - BODY_BOTTOM },
    bufferPages: true,
    info: {
      Title: `Statement of account: ${who}`,
      Subject: `${s.date_from} to ${s.date_to}`,
      CreationDate: date,
      ModDate: date,
    },
    lang: 'en',
    displayTitle: true,
  });
  const { regular, bold } = loadFonts();
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.font('bold').fontSize(20).fillColor('black').text('Statement of account', MARGIN, MARGIN, { width: CONTENT });
  doc.font('regular').fontSize(11).text(who, { width: CONTENT });
  doc.moveDown(0.5).fontSize(9);
  const meta: Array<[string, string]> = [
    ['Account', s.side === 'vendor' ? 'Payable: what is owed to the vendor' : 'Receivable: what the customer owes'],
    ['Period', `${f.date(s.date_from)} – ${f.date(s.date_to)}`],
  ];
  if (s.currency) meta.push(['Currency', s.currency.toUpperCase()]);
  for (const [label, value] of meta) {
    const y = doc.y;
    doc.fillColor(GREY).text(label, MARGIN, y, { width: 90 });
    doc.fillColor('black').text(value, MARGIN + 90, y, { width: CONTENT - 90 });
  }

  const row = (cells: string[], y: number, font: 'regular' | 'bold', color = 'black'): number => {
    let x = MARGIN;
    doc.font(font).fontSize(8.5).fillColor(color);
    let bottom = y;
    columns.forEach((c, i) => {
      doc.text(cells[i] ?? '', x + 2, y, { width: c.width - 4, align: c.align });
      bottom = Math.max(bottom, doc.y);
      x += c.width;
    });
    return bottom + 3;
  };
  const rule = (y: number) =>
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + CONTENT, y)
      .strokeColor(RULE)
      .lineWidth(0.7)
      .stroke();
  const header = (y: number) => {
    const bottom = row(
      columns.map((c) => c.label),
      y,
      'bold',
      GREY,
    );
    rule(bottom);
    return bottom + 4;
  };
  const money = (v: number) => (v === 0 ? '' : f.money(String(v)));

  let y = header(doc.y + 20);
  y = row([f.date(s.date_from), 'Opening balance', '', '', '', f.money(String(s.opening_balance))], y, 'bold');
  for (const l of s.lines) {
    if (y > BODY_BOTTOM - 30) {
      doc.addPage();
      y = header(MARGIN);
    }
    y = row(
      [f.date(l.date), KIND_LABELS[l.kind] ?? l.kind, l.reference, money(l.debit), money(l.credit), f.money(String(l.balance))],
      y,
      'regular',
    );
  }
  rule(y);
  row([f.date(s.date_to), 'Closing balance', '', '', '', f.money(String(s.closing_balance))], y + 4, 'bold');

  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottomMargin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('regular').fontSize(7.5).fillColor(GREY);
    doc.text(`${who} · ${s.date_from} – ${s.date_to}`, MARGIN, A4.height - 45, { width: CONTENT - 80, lineBreak: false, ellipsis: true });
    doc.text(`Page ${i - range.start + 1} of ${range.count}`, MARGIN + CONTENT - 80, A4.height - 45, {
      width: 80,
      align: 'right',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottomMargin;
  }
  doc.end();
  return done;
}
