import type { Knex } from 'knex';
import { addOrganizationRounding } from './read-model/organization-settings';

/** The names a document service's tables go by, for the tax columns both document services add. */
export interface TaxedDocumentTables {
  /** `invoices`, `quotations`. */
  documents: string;
  /** `invoice_lines`, `quotation_lines`. */
  lines: string;
  /** The lines' column naming their document: `invoice_id`, `quotation_id`. */
  documentKey: string;
  /** The document's total: `invoicetotal`, `total`. */
  total: string;
  /** Amount columns beyond subtotal, tax and total that take 4 decimals too: the line's, the document's. */
  moreAmounts?: { line: string; document: string };
  /** Decimals of the stored exchange rate (8 for invoices, 10 for quotations, as they were made). */
  exchangeRateScale: number;
}

/**
 * Documents carry their taxes (docs/invoicing.md, "Taxes and rounding"): invoicing's migration 013
 * and sales' 009, one schema change for both. Amounts take 4 decimals (a currency has 0 to 4). Each
 * line gets its VAT category: rows made before are S when their rate is above 0, Z when it is 0. Each
 * document keeps its allowances and charges (none before), its VAT breakdown, BT-107/108/110/114, its
 * exchange rate and the rounding policy its amounts were computed with (null: `line`, what every
 * earlier document was). An earlier document's breakdown is its lines per category and rate, the VAT
 * rounded once on each base, and what its rows added beyond that its rounding amount: what `line`
 * computes for it. A document still without a currency takes the organization's default as the
 * service knows it.
 */
export async function addDocumentTaxColumns(trx: Knex.Transaction, schema: string, t: TaxedDocumentTables): Promise<void> {
  const numeric = (column: string) => `alter column ${column} type numeric`;
  await trx.raw(
    `alter table ??.??
       add column tax_category varchar(2),
       add column tax_exemption_reason text,
       add column tax_exemption_code varchar(40),
       add column reverse_charge_rate numeric(9, 4),
       ${['subtotal', 'tax_amount', 'total', ...(t.moreAmounts ? [t.moreAmounts.line] : [])].map(numeric).join(',\n       ')}`,
    [schema, t.lines],
  );
  await trx.raw(`update ??.?? set tax_category = case when tax_rate > 0 then 'S' else 'Z' end`, [schema, t.lines]);
  await trx.raw('alter table ??.?? alter column tax_category set not null', [schema, t.lines]);
  await trx.raw(
    `alter table ??.??
       add column allowances_charges jsonb not null default '[]',
       add column tax_breakdown jsonb not null default '[]',
       add column allowance_total numeric(20, 4) not null default 0,
       add column charge_total numeric(20, 4) not null default 0,
       add column vat_total numeric(20, 4) not null default 0,
       add column rounding_amount numeric(20, 4) not null default 0,
       add column exchange_rate numeric(18, ${Number(t.exchangeRateScale)}),
       add column rounding varchar(8),
       add column cash_rounding numeric(14, 4),
       ${['subtotal', 'tax_amount', ...(t.moreAmounts ? [t.moreAmounts.document] : []), t.total].map(numeric).join(',\n       ')}`,
    [schema, t.documents],
  );
  await trx.raw(
    `with rows as (
       select ?? as document_id, tax_category, tax_rate, sum(subtotal) as taxable, round(sum(subtotal) * tax_rate / 100, 2) as tax, min(id) as first_line
         from ??.?? group by ??, tax_category, tax_rate),
     docs as (
       select document_id, sum(tax) as vat,
              jsonb_agg(jsonb_build_object('tax_category', tax_category, 'tax_rate', trim_scale(tax_rate)::text,
                'taxable_amount', taxable::text, 'tax_amount', tax::text, 'exemption_reason', null, 'exemption_code', null)
                order by first_line) as breakdown
         from rows group by document_id)
     update ??.?? d set tax_breakdown = docs.breakdown, vat_total = docs.vat, rounding_amount = d.?? - d.subtotal - docs.vat
       from docs where docs.document_id = d.id`,
    [t.documentKey, schema, t.lines, t.documentKey, schema, t.documents, t.total],
  );
  await trx.raw(
    `update ??.?? d set currency = s.default_currency from ??.organization_settings s
      where d.currency is null and s.org_id = d.org_id and s.default_currency is not null`,
    [schema, t.documents, schema],
  );
  await addOrganizationRounding(trx, schema);
}
