/**
 * A value already serialized as JSON: PostgreSQL wrote it (a page of records, recordJsonSql), so the
 * service neither parses rows into objects nor serializes them again. A reply carries it into its
 * bytes as it is (serializeBody): a fifth of the CPU of rows read by node-postgres, mapped and
 * stringified (docs/performance.md, "Why the code is shaped so").
 *
 * Wherever a body is serialized by JSON.stringify instead (a recorded reply, a log line), `toJSON`
 * makes it read as the value it holds, so it can never go out as `{}`.
 */
export class JsonText<T = unknown> {
  /** The type of the value the text holds; never set, only there for the compiler. */
  declare readonly value?: T;

  constructor(readonly text: string) {}

  toJSON(): T {
    return JSON.parse(this.text) as T;
  }
}

/** A reply body whose top-level fields may each be given already serialized. */
export type Serializable<Body> = { [K in keyof Body]: Body[K] | JsonText<Body[K]> };

/**
 * A reply body as JSON text, its top-level JsonText fields spliced in as they are. The same text
 * JSON.stringify would write for the parsed equivalent, keys in the same order.
 */
export function serializeBody(body: Record<string, unknown>): string {
  return hasJsonText(body) ? bodyPieces(body).join('') : JSON.stringify(body);
}

/**
 * serializeBody's text as UTF-8 bytes, as a reply travels. A body holding JsonText is written piece
 * by piece into one buffer: encoding the joined text would first copy a page's text once more into
 * one flat string (11 KB of heap for a list of 25 partners, garbage at once).
 */
export function serializeBodyBytes(body: Record<string, unknown>): Buffer {
  if (!hasJsonText(body)) return Buffer.from(JSON.stringify(body));
  const pieces = bodyPieces(body);
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}

/** The body's JSON text in pieces, in order: the JsonText fields' texts as they are. */
function bodyPieces(body: Record<string, unknown>): string[] {
  const pieces = ['{'];
  for (const key of Object.keys(body)) {
    const value = body[key];
    const json = value instanceof JsonText ? value.text : JSON.stringify(value);
    // As JSON.stringify does, a field whose value has no JSON form (undefined, a function) is left out.
    if (json === undefined) continue;
    pieces.push(`${pieces.length > 1 ? ',' : ''}${JSON.stringify(key)}:`, json);
  }
  pieces.push('}');
  return pieces;
}

/** The body with every top-level JsonText read back into its value, for code that inspects it. */
export function plainBody(body: Record<string, unknown>): Record<string, unknown> {
  return hasJsonText(body) ? (JSON.parse(serializeBody(body)) as Record<string, unknown>) : body;
}

function hasJsonText(body: Record<string, unknown>): boolean {
  for (const key in body) if (body[key] instanceof JsonText) return true;
  return false;
}
