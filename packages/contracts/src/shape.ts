import type { FieldError } from './envelope';

/**
 * How deep and how wide a request may be. Checked before any schema looks at the input, so that no
 * validator, hash or serializer that recurses ever meets a pathological shape, and by a loop with its
 * own stack, so the check cannot overflow the call stack itself.
 *
 * The legitimate extremes: the deepest request is three containers down (body → line_items → line),
 * the longest arrays are 500 lines or partner ids, the widest object a body of some 30 fields or 200
 * locations of a stock adjustment. The limits leave a wide margin above all of them.
 */
export interface ShapeLimits {
  /** Containers nested inside each other, the body itself being the first. */
  maxDepth: number;
  maxArrayItems: number;
  maxObjectKeys: number;
}

export const requestShapeLimits: ShapeLimits = { maxDepth: 32, maxArrayItems: 1000, maxObjectKeys: 1000 };

interface Node {
  value: object;
  depth: number;
  key: string | number | undefined;
  parent: Node | undefined;
}

/** The first place where `input` exceeds the limits, as a field error naming it; undefined when it does not. */
export function checkShape(input: unknown, limits: ShapeLimits = requestShapeLimits): FieldError | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const stack: Node[] = [{ value: input, depth: 1, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.depth > limits.maxDepth) return shapeError(node, `is nested deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(node.value)) {
      if (node.value.length > limits.maxArrayItems) return shapeError(node, `must have at most ${limits.maxArrayItems} items`);
      for (let i = node.value.length - 1; i >= 0; i--) push(stack, node.value[i], i, node);
    } else {
      const keys = Object.keys(node.value);
      if (keys.length > limits.maxObjectKeys) return shapeError(node, `must have at most ${limits.maxObjectKeys} fields`);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        push(stack, (node.value as Record<string, unknown>)[key], key, node);
      }
    }
  }
  return undefined;
}

function push(stack: Node[], value: unknown, key: string | number, parent: Node): void {
  if (value !== null && typeof value === 'object') stack.push({ value, depth: parent.depth + 1, key, parent });
}

function shapeError(node: Node, problem: string): FieldError {
  const path: Array<string | number> = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) path.push(n.key);
  const field = path.length === 0 ? 'body' : fieldName(path.reverse());
  return { field, message: `${field} ${problem}` };
}

/** A field path as errors name it (`line_items.0.price`), with hostile keys made printable and short. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? 'body' : path.map((k) => printable(String(k), 64)).join('.');
}

// Finding control characters, to write them as escapes, is this pattern's job.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\uD800-\uDFFF\uFFFE\uFFFF]/gu;

/**
 * Input echoed in an error message: at most `max` characters, with control characters, unpaired
 * surrogates and noncharacters written as `\uXXXX`, so that an answer never carries what a store
 * of answers (PostgreSQL text or jsonb) cannot hold.
 */
export function printable(value: string, max: number): string {
  let short = value;
  if (value.length > max) {
    // Not between the two halves of a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
    short = `${value.slice(0, end)}…`;
  }
  return short.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
