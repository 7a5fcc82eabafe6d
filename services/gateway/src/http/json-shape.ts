import { fieldName, requestShapeLimits, type FieldError, type ShapeLimits } from '@bo/contracts';

/**
 * Most values (objects, arrays, strings, numbers, literals) one body may hold. JSON.parse makes an
 * object of some 60 bytes of heap from the two bytes `{}`, so 1 MiB of `[{},{},…]` would cost 22 MiB;
 * under this limit a body costs at most about its own size again. The largest real request (an
 * invoice of 500 lines of a dozen fields) holds about 7,000.
 */
export const MAX_BODY_VALUES = 20_000;

/** Why a body was refused before it was parsed: 400 naming where its shape is too deep or wide, or 413 for too many values. */
export type ShapeRefusal = { status: 400; error: FieldError } | { status: 413; message: string };

const ARRAY = 0;
const OBJECT = 1;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Checks a JSON text's shape on its bytes (UTF-8), before JSON.parse builds anything of it: no
 * container nested deeper than `limits.maxDepth`, no array of more than `maxArrayItems` items, no
 * object of more than `maxObjectKeys` members (each member counted, repeated names too), no more than
 * `maxValues` values in all. One pass, memory of the order of `maxDepth`; the limits and the field
 * named in a refusal are those of the contracts' checkShape, which the services apply again to what
 * they are forwarded.
 *
 * It reads structure only: a text that is not JSON passes or is refused here as its brackets read,
 * and JSON.parse refuses it after.
 */
export function scanJsonShape(
  bytes: Uint8Array,
  limits: ShapeLimits = requestShapeLimits,
  maxValues = MAX_BODY_VALUES,
): ShapeRefusal | undefined {
  const kinds: number[] = [];
  /** Items of an array, members of an object, per open container. */
  const counts: number[] = [];
  /** Where the current member's name is, per open object: its quoted text. */
  const keyStart: number[] = [];
  const keyEnd: number[] = [];
  let depth = 0;
  let values = 0;
  let expectKey = false;
  const n = bytes.length;

  /** The path to the container open at `level` (0: the body), as checkShape names it. */
  const pathTo = (level: number): Array<string | number> => {
    const path: Array<string | number> = [];
    for (let k = 0; k < level; k++)
      path.push(kinds[k] === ARRAY ? (counts[k] as number) - 1 : keyText(bytes, keyStart[k] as number, keyEnd[k] as number));
    return path;
  };
  const refuse = (level: number, problem: string): ShapeRefusal => {
    const field = fieldName(pathTo(level));
    return { status: 400, error: { field, message: `${field} ${problem}` } };
  };
  /** A value starts at the current level: counted, and as an item of the array it is in. */
  const valueStarts = (): ShapeRefusal | undefined => {
    if (++values > maxValues) return { status: 413, message: `Request body holds more than ${maxValues} values` };
    const top = depth - 1;
    if (top >= 0 && kinds[top] === ARRAY && ++(counts[top] as number) > limits.maxArrayItems) {
      return refuse(top, `must have at most ${limits.maxArrayItems} items`);
    }
    return undefined;
  };

  let i = 0;
  while (i < n) {
    const c = bytes[i] as number;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      i++;
    } else if (c === 0x2c) {
      expectKey = depth > 0 && kinds[depth - 1] === OBJECT;
      i++;
    } else if (c === 0x3a) {
      expectKey = false;
      i++;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
      expectKey = false;
      i++;
    } else if (c === 0x5b || c === 0x7b) {
      const refused = valueStarts();
      if (refused) return refused;
      if (depth >= limits.maxDepth) return refuse(depth, `is nested deeper than ${limits.maxDepth} levels`);
      kinds[depth] = c === 0x5b ? ARRAY : OBJECT;
      counts[depth] = 0;
      depth++;
      expectKey = c === 0x7b;
      i++;
    } else if (c === QUOTE) {
      const end = stringEnd(bytes, i);
      const top = depth - 1;
      if (expectKey && top >= 0 && kinds[top] === OBJECT) {
        keyStart[top] = i;
        keyEnd[top] = end;
        expectKey = false;
        if (++(counts[top] as number) > limits.maxObjectKeys) return refuse(top, `must have at most ${limits.maxObjectKeys} fields`);
      } else {
        const refused = valueStarts();
        if (refused) return refused;
      }
      i = end;
    } else {
      // A number or literal (or anything JSON.parse will refuse): one value up to the next delimiter.
      const refused = valueStarts();
      if (refused) return refused;
      i++;
      while (i < n && !isDelimiter(bytes[i] as number)) i++;
    }
  }
  return undefined;
}

function isDelimiter(c: number): boolean {
  return (
    c === 0x2c ||
    c === 0x5d ||
    c === 0x7d ||
    c === 0x3a ||
    c === 0x5b ||
    c === 0x7b ||
    c === QUOTE ||
    c === 0x20 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x09
  );
}

/** The index after the string starting at `start` (its opening quote); the end of the text if it never closes. */
function stringEnd(bytes: Uint8Array, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return bytes.length;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** A member's name, decoded; its raw text between the quotes when it is no valid JSON string. */
function keyText(bytes: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('utf8');
  try {
    return JSON.parse(raw) as string;
  } catch {
    return raw.slice(1, raw.endsWith('"') ? -1 : undefined);
  }
}
