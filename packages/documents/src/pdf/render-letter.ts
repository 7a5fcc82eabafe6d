import PDFDocument from 'pdfkit';
import type { Party } from '../model';
import { loadFonts } from './fonts';
import { formatter } from './format';
import { addressLines } from './render-pdf';

/** A reminder letter as the renderer draws it (`action: "get"`, `format: "pdf"` on /invoicing/dunning, docs/dunning.md). */
export interface ReminderLetterDocument {
  /** Who writes: the organization, as its documents print it. */
  sender: Party;
  /** Where to pay: the organization's account. */
  pay_to: { iban: string | null; bic: string | null };
  /** Who receives it: the customer, as its documents print it. */
  recipient: Party;
  letter: {
    id: number;
    invoicenumber: string;
    level: number;
    as_of: string;
    due_date: string;
    currency: string;
    due_amount: number;
    days_overdue: number;
    fee: number;
    interest_rate: number | null;
    interest: number;
    total: number;
    text: string;
  };
  /** The invoice's structured reference (ISO 11649), quoted with the payment; null when it has none. */
  payment_reference: string | null;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const CONTENT = A4.width - 2 * MARGIN;
const GREY = '#666666';
const RULE = '#cccccc';

/** The heading a level's letter carries: reminder, second reminder, … */
export function letterTitle(level: number): string {
  if (level === 1) return 'Payment reminder';
  if (level === 2) return 'Second payment reminder';
  if (level === 3) return 'Third payment reminder';
  return `Payment reminder, level ${level}`;
}

/**
 * A reminder as an A4 PDF: sender and recipient, the letter's date and title, the level's text, the
 * overdue invoice with what is due, the fee and the statutory interest (its rate and day count), the
 * total, and how to pay. Deterministic like the other PDFs: dated by the letter's date, not the clock.
 */
export function renderLetterPdf(d: ReminderLetterDocument): Promise<Buffer> {
  const l = d.letter;
  const f = formatter(l.currency.toUpperCase());
  const date = new Date(`${l.as_of}T00:00:00Z`);
  const title = letterTitle(l.level);
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, left: MARGIN, right: MARGIN, bottom: MARGIN },
    info: { Title: `${title}: invoice ${l.invoicenumber}`, Subject: d.recipient.name, CreationDate: date, ModDate: date },
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

  doc.font('bold').fontSize(10).fillColor('black').text(d.sender.name, MARGIN, MARGIN, { width: CONTENT });
  doc.font('regular').fontSize(8.5).fillColor(GREY);
  for (const line of addressLines(d.sender)) doc.text(line, { width: CONTENT });
  if (d.sender.vat_id) doc.text(`VAT ${d.sender.vat_id}`, { width: CONTENT });

  doc.moveDown(2).font('regular').fontSize(10).fillColor('black');
  doc.text(d.recipient.name, { width: CONTENT / 2 });
  for (const line of addressLines(d.recipient)) doc.text(line, { width: CONTENT / 2 });

  doc.moveDown(1.5).text(f.date(l.as_of), { width: CONTENT, align: 'right' });
  doc.moveDown(1).font('bold').fontSize(16).text(title, { width: CONTENT });
  doc.font('regular').fontSize(10).fillColor(GREY).text(`Invoice ${l.invoicenumber} · letter ${l.id}`, { width: CONTENT });
  doc.moveDown(1).fillColor('black').text(l.text, { width: CONTENT });

  const rows: Array<[string, string]> = [
    ['Invoice', l.invoicenumber],
    ['Due date', f.date(l.due_date)],
    ['Days overdue', String(l.days_overdue)],
    ['Amount due', f.money(String(l.due_amount))],
  ];
  if (l.fee !== 0) rows.push(['Reminder fee', f.money(String(l.fee))]);
  if (l.interest_rate !== null)
    rows.push([`Interest, ${f.percent(String(l.interest_rate))} a year, ${l.days_overdue} days / 365`, f.money(String(l.interest))]);
  let y = doc.y + 18;
  const rule = (at: number) =>
    doc
      .moveTo(MARGIN, at)
      .lineTo(MARGIN + CONTENT, at)
      .strokeColor(RULE)
      .lineWidth(0.7)
      .stroke();
  rule(y - 4);
  for (const [label, value] of rows) {
    doc
      .font('regular')
      .fontSize(10)
      .fillColor('black')
      .text(label, MARGIN, y, { width: CONTENT - 140 });
    doc.text(value, MARGIN + CONTENT - 140, y, { width: 140, align: 'right' });
    y = doc.y + 4;
  }
  rule(y);
  y += 6;
  doc.font('bold').text('Total to pay', MARGIN, y, { width: CONTENT - 140 });
  doc.text(f.money(String(l.total)), MARGIN + CONTENT - 140, y, { width: 140, align: 'right' });

  const pay: string[] = [];
  if (d.pay_to.iban) pay.push(`IBAN ${d.pay_to.iban}${d.pay_to.bic ? ` · BIC ${d.pay_to.bic}` : ''}`);
  pay.push(`Reference ${d.payment_reference ?? l.invoicenumber}`);
  doc.moveDown(2).font('regular').fontSize(9).fillColor(GREY).text('Please pay to', MARGIN, doc.y, { width: CONTENT });
  doc.fillColor('black');
  for (const line of pay) doc.text(line, { width: CONTENT });
  if (d.sender.email) doc.moveDown(1).fillColor(GREY).text(`Questions about this letter: ${d.sender.email}`, { width: CONTENT });
  doc.end();
  return done;
}
