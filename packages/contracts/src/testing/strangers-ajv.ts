import Ajv2020 from 'ajv/dist/2020';
import { documentFormats } from '../json-schema.fixtures';

/**
 * Ajv as someone who did not write the OpenAPI document would run it on the document's schemas: in
 * strict mode, with every strict option an error (unknown keywords, keywords without their type),
 * and no tuning (`multipleOfPrecision` least of all). What it is told is what any reader of an
 * OpenAPI 3.1 document must be: OpenAPI's keywords beside JSON Schema's, the document's `x-`
 * extensions (allowed on any schema), and what its formats mean (`date`, and `iban`, which the
 * document defines in words).
 *
 * Test code in the package's `testing/` folder: the package's own tests import it inside their build,
 * and as test code it uses the root's devDependencies (ajv).
 */
export function strangersAjv(extensions: readonly string[]): Ajv2020 {
  const ajv = new Ajv2020({ strict: true });
  ajv.addVocabulary(['discriminator', 'example', 'xml', 'externalDocs', ...extensions]);
  for (const [name, validate] of Object.entries(documentFormats)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}

/** Every `x-` member a document carries, anywhere. */
export function extensionsIn(doc: unknown): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      walk(value);
    }
  };
  walk(doc);
  return [...found].sort();
}
