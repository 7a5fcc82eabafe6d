/**
 * Units of measure as the catalog names them (free text) to UN/ECE Recommendation 20 codes, which
 * EN 16931 requires (BT-130). Unknown or absent units are C62 ("one"), the code for plain counts.
 */
const rec20: Record<string, string> = {
  unit: 'C62',
  units: 'C62',
  one: 'C62',
  ea: 'C62',
  each: 'C62',
  piece: 'H87',
  pieces: 'H87',
  pc: 'H87',
  pcs: 'H87',
  hour: 'HUR',
  hours: 'HUR',
  h: 'HUR',
  hr: 'HUR',
  hrs: 'HUR',
  minute: 'MIN',
  minutes: 'MIN',
  min: 'MIN',
  day: 'DAY',
  days: 'DAY',
  week: 'WEE',
  weeks: 'WEE',
  month: 'MON',
  months: 'MON',
  year: 'ANN',
  years: 'ANN',
  kg: 'KGM',
  kilogram: 'KGM',
  kilograms: 'KGM',
  g: 'GRM',
  gram: 'GRM',
  grams: 'GRM',
  t: 'TNE',
  tonne: 'TNE',
  tonnes: 'TNE',
  ton: 'TNE',
  l: 'LTR',
  liter: 'LTR',
  liters: 'LTR',
  litre: 'LTR',
  litres: 'LTR',
  ml: 'MLT',
  m: 'MTR',
  meter: 'MTR',
  meters: 'MTR',
  metre: 'MTR',
  metres: 'MTR',
  cm: 'CMT',
  mm: 'MMT',
  km: 'KMT',
  m2: 'MTK',
  'm²': 'MTK',
  sqm: 'MTK',
  m3: 'MTQ',
  'm³': 'MTQ',
  kwh: 'KWH',
  set: 'SET',
  sets: 'SET',
  pair: 'PR',
  pairs: 'PR',
  box: 'XBX',
  boxes: 'XBX',
  pallet: 'XPX',
  pallets: 'XPX',
  package: 'XPK',
  packages: 'XPK',
  pack: 'XPK',
};

/** Codes accepted as they are when the catalog already uses them. */
const knownCodes = new Set(Object.values(rec20));

export function unitCode(unit: string | null | undefined): string {
  const key = (unit ?? '').trim().toLowerCase();
  if (key === '') return 'C62';
  const upper = key.toUpperCase();
  if (knownCodes.has(upper)) return upper;
  return rec20[key] ?? 'C62';
}
