import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // 009 kept no earlier `quotation` source as a conversion, since invoicing's own rows cannot tell a
  // conversion from a client's claim. Its casualties: drafts converted before it stopped counting
  // as committed credit, and a conversion pending at the upgrade made a second invoice, the first
  // not being found as the quotation's. The conversion records are sales': a converted quotation
  // names its invoice, and a quotation frozen by a conversion not finished names none yet but was
  // given, before 009, the invoice whose source was `quotation` and its id. Both are read here, once
  // and read-only (the one place a service reads another's schema: a repair of data that only
  // exists split between the two), and those links are restored where the invoice is of the same
  // organization and no other invoice holds the quotation's link; their lines leave
  // source_link_review. A quotation whose pending conversion did make a second invoice keeps that
  // one; the first stays listed, its reason saying so. Without sales' table (another database)
  // nothing changes.
  name: '022_restore_conversion_links',
  async up(trx, schema) {
    const sales = 'sales';
    const { rows } = await trx.raw<{ rows: Array<{ quotations: string | null; frozen: boolean }> }>(
      `select to_regclass(?)::text as quotations,
                exists (select 1 from information_schema.columns where table_schema = ? and table_name = 'quotations'
                          and column_name = 'conversion_attempted_at') as frozen`,
      [`${sales}.quotations`, sales],
    );
    if (!rows[0]?.quotations) return;
    // What each quotation's conversion made, by sales' records: the invoice a converted one names,
    // or, for one frozen by an unfinished conversion, the invoice listed by 009 as naming it.
    const pending = rows[0].frozen
      ? `union all
           select q.org_id, q.id as quotation_id, i.id as invoice_id
             from ??.quotations q
             join ??.source_link_review r on r.org_id = q.org_id and r.sourcetype = 'quotation' and r.sourceid = q.id::text
             join ??.invoices i on i.id = r.invoice_id and i.org_id = q.org_id
            where q.status in ('draft', 'sent', 'accepted') and q.conversion_attempted_at is not null`
      : '';
    await trx.raw(
      `create temporary table conversion_links on commit drop as
           select q.org_id, q.id as quotation_id, i.id as invoice_id
             from ??.quotations q join ??.invoices i on i.id = q.invoice_id and i.org_id = q.org_id
            where q.status = 'converted'
           ${pending}`,
      rows[0].frozen ? [sales, schema, sales, schema, schema] : [sales, schema],
    );
    await trx.raw(
      `update ??.invoices i set converted_from_quotation_id = l.quotation_id
           from conversion_links l
          where i.id = l.invoice_id and i.converted_from_quotation_id is null
            and not exists (select 1 from ??.invoices o where o.org_id = l.org_id and o.converted_from_quotation_id = l.quotation_id)`,
      [schema, schema],
    );
    await trx.raw(
      `delete from ??.source_link_review r using ??.invoices i
          where i.id = r.invoice_id and i.converted_from_quotation_id is not null`,
      [schema, schema],
    );
    await trx.raw(
      `update ??.source_link_review r
            set reason = 'its quotation''s conversion made it, but another invoice (' || o.id || ') was made for the quotation since: the quotation keeps that one'
           from conversion_links l join ??.invoices o on o.org_id = l.org_id and o.converted_from_quotation_id = l.quotation_id
          where r.invoice_id = l.invoice_id and o.id <> l.invoice_id`,
      [schema, schema],
    );
  },
};
