/**
 * Each room holds one kind of thing (docs/architecture.md, "Rooms"):
 *
 * - packages/runtime is how any service runs: bus, host, outbox and inbox, transactions, idempotency,
 *   observability. It knows no business word; the rules shared by the documents of sales and
 *   invoicing (taxes, parties, catalog lines, the organization's settings as a read model) live in
 *   packages/billing. The check reads the runtime's code with comments and strings removed, so a
 *   comment may still use a partner as its example.
 * - A handler (`*.handler.ts`) tells what an operation does: load, decide, store. Its SQL lives in
 *   the module's repository, so a handler reads as the rule it applies. No handler holds any.
 * - A migration is history: it imports no domain code, so it never changes when today's rule does.
 *   It may use the runtime's migration tools and billing's DDL of the tables sales and invoicing
 *   both keep (one definition for two schemas). The one exception is repeatable by design: partners'
 *   stored record is rebuilt whenever the record's fields change (`storedRecordMigration`).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sourceFilesOf } from './import-graph';
import { codeOnly } from './source-text';

const root = join(__dirname, '..', '..');

/** Words of the business: a runtime identifier containing one belongs in billing or a service. */
const domainWords = [
  'invoice',
  'quotation',
  'partner',
  'product',
  'stock',
  'tax',
  'vat',
  'payment',
  'ledger',
  'journal',
  'credit',
  'currency',
  'customer',
  'vendor',
  'discount',
];

function domainWordsIn(code: string): string[] {
  const identifiers = code.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [];
  const isDomainWord = (part: string) => domainWords.some((w) => part === w || part === `${w}s` || part === `${w}es`);
  // An identifier's words: camelCase, PascalCase and snake_case split apart (`invoiceTotal` → invoice, total).
  const wordsOf = (id: string) =>
    id
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[\s_$]+/);
  return [...new Set(identifiers.filter((id) => wordsOf(id).some(isDomainWord)))];
}

/** The SQL a source holds: query-builder calls on a connection, raw fragments, or statements in strings. */
export function sqlIn(source: string): string[] {
  const withoutComments = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:])\/\/[^\n]*/g, '$1 ');
  const code = codeOnly(source);
  return [
    // `trx('invoices')`, `ctx.db<Row>('endpoints')`: a table named on a connection.
    ...(code.match(/\b(?:trx|db|knex)\s*(?:<[^>()]*>)?\s*\(/g) ?? []),
    ...(code.match(
      /\.(?:raw|whereRaw|orWhereRaw|andWhereRaw|joinRaw|selectRaw|havingRaw|orderByRaw|withSchema|fromRaw)\s*(?:<[^>()]*>)?\s*\(/g,
    ) ?? []),
    ...(withoutComments.match(/\b(?:select\s[\s\S]{0,200}?\sfrom\s|insert\s+into\s|update\s+\w+(?:\.\w+)?\s+set\s|delete\s+from\s)/gi) ??
      []),
  ];
}

describe('rooms', () => {
  it('reads code without its comments and strings', () => {
    expect(domainWordsIn(codeOnly("// a partner\n/* an invoice */ const x = 'tax' + `vat ${1}`;"))).toEqual([]);
    expect(domainWordsIn(codeOnly('class A { private stocking = 1; }'))).toEqual([]);
    expect(domainWordsIn(codeOnly('export function invoiceTotal() {}'))).toEqual(['invoiceTotal']);
    expect(domainWordsIn(codeOnly('const open_invoices = 1, TaxRate = 2;'))).toEqual(['open_invoices', 'TaxRate']);
  });

  it('keeps business words out of the runtime', () => {
    const offenders = sourceFilesOf(join(root, 'packages', 'runtime', 'src'))
      .map((file) => ({ file: relative(root, file), words: domainWordsIn(codeOnly(readFileSync(file, 'utf8'))) }))
      .filter((f) => f.words.length > 0);
    expect(offenders).toEqual([]);
  });

  it('recognizes SQL in a handler', () => {
    expect(sqlIn("const row = await trx('quotations').where({ id }).first();")).toHaveLength(1);
    expect(sqlIn("await ctx.db<Row>('endpoints').insert(row);")).toHaveLength(1);
    expect(sqlIn("q.whereRaw('a = ?', [1]);")).toHaveLength(1);
    expect(sqlIn('await db.query(`select id from invoices where org_id = $1`, [org]);')).toHaveLength(1);
    expect(sqlIn("// trx('x') in a comment\nconst row = await findQuotation(ctx.db, orgId, id);")).toEqual([]);
    expect(sqlIn('return ctx.db.transaction(async (trx) => markCancelled(trx, id));')).toEqual([]);
  });

  it('keeps SQL in repositories, out of handlers', () => {
    const handlers = ['services', 'apps']
      .flatMap((dir) => sourceFilesOf(join(root, dir)))
      .filter((file) => file.endsWith('.handler.ts'))
      .map((file) => ({ file: relative(root, file), sql: sqlIn(readFileSync(file, 'utf8')) }));
    expect(handlers.length).toBeGreaterThan(80);
    expect(handlers.filter((h) => h.sql.length > 0).map((h) => ({ file: h.file, sql: h.sql.slice(0, 3) }))).toEqual([]);
  });

  it('keeps domain code out of migrations', () => {
    const allowed = (specifier: string, file: string) =>
      specifier.startsWith('./') ||
      ['@bo/runtime', '@bo/billing'].includes(specifier) ||
      (file === 'services/partners/src/migrations/index.ts' && specifier === '../partner/partner.record');
    const offenders = ['services']
      .flatMap((dir) => sourceFilesOf(join(root, dir)))
      .map((file) => relative(root, file))
      .filter((file) => /\/src\/migrations\//.test(file))
      .flatMap((file) =>
        [...readFileSync(join(root, file), 'utf8').matchAll(/\bfrom\s+'([^']+)'/g)]
          .map((m) => m[1]!)
          .filter((specifier) => !allowed(specifier, file))
          .map((specifier) => `${file} imports ${specifier}`),
      );
    expect(offenders).toEqual([]);
  });
});
