import { isValidIban, normalizeIban } from './identifiers';
import { peppolIdProblem } from './peppol-id';

/**
 * What the `format`s of the OpenAPI document mean, for tests that validate with a JSON Schema
 * validator (ajv knows no format by itself): `date` is RFC 3339's full-date; `iban` and `peppol-id`
 * the rules the document states in words (a checksum; a listed scheme and its identifier's check),
 * judged as the server judges them.
 */
export const documentFormats: Record<string, (value: string) => boolean> = {
  date: (v) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
    const day = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === v;
  },
  iban: (v) => isValidIban(normalizeIban(v)),
  'peppol-id': (v) => peppolIdProblem(v.trim()) === undefined,
};
