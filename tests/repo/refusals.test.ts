/**
 * A module refuses by name (docs/adding-an-operation.md, "Refuse by name"): its refusals are listed
 * once, in a `*-refusals.ts` file made with defineRefusals, and its code throws those, so a test or a
 * caller tells them apart by name. The services listed here, and the checks they share
 * (packages/billing), are moved whole: none of their code builds a refusal with the runtime's plain
 * constructors any more. A service joins the list once every module of it is moved.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sourceFilesOf } from './import-graph';
import { codeOnly } from './source-text';

const root = join(__dirname, '..', '..');
const byName = ['catalog', 'partners', 'sales', 'webhooks', 'invoicing'];
const plain = /\b(?:notFound|validationFailed|invalidState|duplicate)\s*\(|\bnew\s+AppError\s*\(\s*400\b/g;

describe('refusals by name', () => {
  it('finds a plain refusal in code, not in comments or strings', () => {
    expect(codeOnly("throw notFound('Product', id);").match(plain)).toHaveLength(1);
    expect(codeOnly("throw new AppError(400, 'not_found', m);").match(plain)).toHaveLength(1);
    expect(codeOnly("// notFound('x')\nconst m = 'validationFailed(';").match(plain)).toBeNull();
  });

  it.each([...byName.map((service) => join('services', service)), join('packages', 'billing')])(
    '%s builds no refusal but its named ones',
    (dir) => {
      const offenders = sourceFilesOf(join(root, dir, 'src'))
        .filter((file) => !file.endsWith('.test.ts'))
        .flatMap((file) => (codeOnly(readFileSync(file, 'utf8')).match(plain) ?? []).map((m) => `${relative(root, file)}: ${m}`));
      expect(offenders).toEqual([]);
    },
  );
});
