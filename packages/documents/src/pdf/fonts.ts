import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { create, type Font } from 'fontkit';
import type { Party, RenderableDocument } from '../model';

/**
 * The fonts the PDF embeds: DejaVu Sans regular and bold, which cover Latin, Greek and Cyrillic
 * (and more), so most names print. Not CJK, Devanagari, Arabic, Hebrew, Thai…: PDFKit draws a
 * character the font lacks as .notdef (an empty box), silently. undrawable() finds them first.
 */
let fonts: { regular: Buffer; bold: Buffer; faces: Font[] } | undefined;
export function loadFonts(): { regular: Buffer; bold: Buffer; faces: Font[] } {
  if (!fonts) {
    const dir = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    const regular = readFileSync(join(dir, 'DejaVuSans.ttf'));
    const bold = readFileSync(join(dir, 'DejaVuSans-Bold.ttf'));
    fonts = { regular, bold, faces: [create(regular), create(bold)] };
  }
  return fonts;
}

/** The characters of `text` some embedded font cannot draw (line breaks and other controls aside), each once. */
export function undrawableCharacters(text: string | null | undefined): string[] {
  if (!text) return [];
  const { faces } = loadFonts();
  const missing = new Set<string>();
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) continue;
    if (faces.some((face) => !face.hasGlyphForCodePoint(cp))) missing.add(char);
  }
  return [...missing];
}

const partyFields: (keyof Party)[] = [
  'name',
  'trading_name',
  'address_lines',
  'city',
  'postal_code',
  'region',
  'vat_id',
  'company_id',
  'email',
  'phone',
];

/**
 * Every text field of the document holding characters the PDF cannot draw, named by its path in
 * the model (`buyer.name`, `lines[2].description`, `notes`) with those characters.
 */
export function undrawable(doc: RenderableDocument): { field: string; characters: string[] }[] {
  const found: { field: string; characters: string[] }[] = [];
  const check = (field: string, text: string | null | undefined) => {
    const characters = undrawableCharacters(text);
    if (characters.length > 0) found.push({ field, characters });
  };
  for (const role of ['seller', 'buyer'] as const) {
    for (const field of partyFields) {
      const value = doc[role][field];
      check(`${role}.${field}`, Array.isArray(value) ? value.filter(Boolean).join('\n') : (value as string | null | undefined));
    }
  }
  doc.lines.forEach((line, i) => {
    for (const field of ['name', 'description', 'sku', 'unit'] as const) check(`lines[${i}].${field}`, line[field]);
  });
  // The texts of the taxes the PDF prints: allowance and charge reasons, exemption reasons.
  doc.taxes?.allowances_charges.forEach((ac, k) => check(`allowances_charges[${k}].reason`, ac.reason));
  doc.taxes?.breakdown.forEach((b) => check('tax_exemption_reason', b.exemption_reason));
  check('number', doc.number);
  check('reference', doc.reference);
  check('payment_terms', doc.payment_terms);
  check('notes', doc.notes);
  return found;
}
