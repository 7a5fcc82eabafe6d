import { readDecimal, sameDecimal } from './decimal-text';
import type { FieldError } from './envelope';
import { fieldName } from './shape';

/**
 * What every number a double may not hold shows somewhere in the text: an exponent (in JSON it
 * follows a digit) or 16 digits or more, split by at most a point, so a run of 8. Most bodies have
 * neither and are not scanned: the test costs a fifth of JSON.parse's time, the scan about as much.
 */
const MAYBE_INEXACT = /\d(?:[eE]|\d{7})/;

interface Frame {
  array: boolean;
  /** The element's index in an array. */
  index: number;
  /** Where the current member's key is in the text (decoded only to name a field). */
  keyStart: number;
  keyEnd: number;
  awaitingKey: boolean;
}

/**
 * The numbers of a JSON text that JSON.parse cannot read as written. It reads every number as the
 * nearest double, so `1e-400` arrives as 0, `0.1000000000000000000001` as 0.1 and
 * `9007199254740993` as 9007199254740992: a field would then judge, and store, a value the client
 * never sent. Each such number is named with the double it would have become; a number past the
 * doubles' range (1e400) is left to the schema, which refuses the infinity it reads as.
 *
 * `json` must be a text JSON.parse accepted. One pass, with a stack as deep as the text's nesting
 * (call it after the shape check has bounded that); a key is decoded only to name a field.
 */
export function inexactJsonNumbers(json: string, max: number): FieldError[] {
  if (!MAYBE_INEXACT.test(json)) return [];
  const errors: FieldError[] = [];
  const stack: Frame[] = [];
  const n = json.length;
  let i = 0;
  while (i < n && errors.length < max) {
    const c = json.charCodeAt(i);
    const top = stack[stack.length - 1];
    if (c === 0x22) {
      const end = stringEnd(json, i);
      if (top !== undefined && !top.array && top.awaitingKey) {
        top.keyStart = i;
        top.keyEnd = end;
        top.awaitingKey = false;
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      let exponent = false;
      for (let d = json.charCodeAt(end); end < n && isNumberChar(d); d = json.charCodeAt(++end))
        if (d === 0x65 || d === 0x45) exponent = true;
      // Up to 15 characters without an exponent: at most 15 significant digits between 1e-13 and
      // 1e15, which a double always carries exactly. Most numbers stop here.
      const read = end - i <= 15 && !exponent ? undefined : exactRead(json.slice(i, end));
      if (read !== undefined) {
        const field = fieldName(stack.map((f) => (f.array ? f.index : (JSON.parse(json.slice(f.keyStart, f.keyEnd)) as string))));
        errors.push({ field, message: `${field} has more digits than a JSON number holds: it reads as ${read}; send it as a string` });
      }
      i = end;
    } else {
      if (c === 0x7b) stack.push({ array: false, index: 0, keyStart: 0, keyEnd: 0, awaitingKey: true });
      else if (c === 0x5b) stack.push({ array: true, index: 0, keyStart: 0, keyEnd: 0, awaitingKey: false });
      else if (c === 0x7d || c === 0x5d) stack.pop();
      else if (c === 0x2c && top !== undefined) {
        if (top.array) top.index++;
        else top.awaitingKey = true;
      }
      i++;
    }
  }
  return errors;
}

/** The double a number token reads as, when that is not the value written; undefined when it is. */
function exactRead(token: string): string | undefined {
  const value = Number(token);
  if (!Number.isFinite(value)) return undefined;
  const shortest = String(value);
  return sameDecimal(readDecimal(token), readDecimal(shortest)) ? undefined : shortest;
}

function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** Just past the closing quote of the string that opens at `start`. */
function stringEnd(json: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = json.indexOf('"', from);
    if (quote < 0) return json.length;
    // Escaped when an odd number of backslashes stands before it.
    let b = quote - 1;
    while (json.charCodeAt(b) === 0x5c) b--;
    if ((quote - 1 - b) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
