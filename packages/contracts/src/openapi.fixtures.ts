/**
 * The OpenAPI document with every local `$ref` replaced by what it points at, its siblings kept over
 * the target's members (OpenAPI 3.1 allows `not` beside `$ref`): what a tool that knows no
 * components, or a JSON Schema validator handed one schema of the document, reads. The document
 * has no recursive schema, so the result is finite.
 */
export function dereference<T>(doc: T): T {
  const root = doc as unknown;
  const resolve = (pointer: string): unknown => {
    if (!pointer.startsWith('#/')) throw new Error(`Only local references are resolved, not ${pointer}`);
    return pointer
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => {
        const next = (node as Record<string, unknown> | undefined)?.[part];
        if (next === undefined) throw new Error(`Unresolved reference ${pointer}`);
        return next;
      }, root);
  };
  const walk = (node: unknown, depth: number): unknown => {
    if (depth > 64) throw new Error('Reference cycle or a document too deep to inline');
    if (Array.isArray(node)) return node.map((item) => walk(item, depth + 1));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...siblings } = node as Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(siblings).map(([k, v]) => [k, walk(v, depth + 1)]));
    if (typeof $ref !== 'string') return own;
    // A discriminator's mapping holds pointers as strings, not `$ref`s: they stay as they are.
    return { ...(walk(resolve($ref), depth + 1) as Record<string, unknown>), ...own };
  };
  return walk(doc, 0) as T;
}
