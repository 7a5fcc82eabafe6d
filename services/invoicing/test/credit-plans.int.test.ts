import { invoicing } from '@bo/contracts';
import { dec, sum } from '@bo/kernel';
import type { Knex } from '@bo/runtime';
import * as testing from '@bo/testkit';
import fc from 'fast-check';
import { customerExposure, ownReceivable, type ExposureDocument } from '../src/domain/credit-limit';
import { committedDrafts, openDueByDocument } from '../src/invoice/credit-limit-check';
import { invoicingMigrations } from '../src/migrations';

/**
 * The credit check's sums run under the partner's credit lock on every validation of a sale: they
 * must read the partner's invoices through an index, not the table, however large it grows. Checked
 * as PostgreSQL plans them when prepared (the services name their statements, and a prepared
 * statement may run on a plan made without its values: a generic plan).
 */
describe('credit check reads: index plans on a large invoices table', () => {
  const schema = 'invoicing';
  let migrated: testing.MigratedDatabase;
  let db: Knex;

  beforeAll(async () => {
    migrated = await testing.migratedDatabase(schema, invoicingMigrations, 1);
    db = migrated.db;
    // 40,000 invoices of 400 partners in one organization: open, paid, drafts, some from quotations.
    await db.raw(
      `insert into invoices (org_id, invoicetype, partner_id, invoicestatus, invoicenumber, invoicedatetime, converted_from_quotation_id, invoicetotal)
       select 1, 'invoiceout', 1 + g % 400, case when g % 10 = 0 then 'draft' when g % 3 = 0 then 'paid' else 'open' end,
              'INV-' || g, now(), case when g % 4 = 0 then g end, 100
       from generate_series(1, 40000) g`,
    );
    await db.raw('analyze invoices');
  });
  afterAll(() => migrated?.drop());

  /** The generic plan of the statement as the service sends it. */
  const genericPlan = async (query: Knex.QueryBuilder): Promise<string> =>
    db.transaction(async (trx) => {
      const { sql, bindings } = query.toSQL().toNative();
      await trx.raw('set local plan_cache_mode = force_generic_plan');
      await trx.raw(`prepare credit_read as ${sql}`);
      // The builders bind only numbers (organization, partner, invoice ids).
      const args = bindings.map((b) => Number(b)).join(', ');
      const { rows } = await trx.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`explain execute credit_read(${args})`);
      await trx.raw('deallocate credit_read');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });

  const committedTotal = (rows: Array<{ invoicetotal: string }>) => sum(rows.map((r) => r.invoicetotal)).toFixed(2);

  it("reads the partner's open invoices through invoices_partner_open", async () => {
    const plan = await genericPlan(openDueByDocument(db, 1, 42));
    expect(plan).toContain('invoices_partner_open');
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it("reads the partner's committed drafts through invoices_partner_committed_out", async () => {
    const plan = await genericPlan(committedDrafts(db, 1, 42, 5));
    expect(plan).toContain('invoices_partner_committed_out');
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('reads what they should', async () => {
    // Partner 42 has the g ≡ 41 (mod 400): all odd, never drafts (g % 10 = 0), so nothing committed.
    expect(await committedDrafts(db, 1, 42, 0)).toEqual([]);
    // Partner 41 has the g ≡ 40 (mod 400): each a draft (g % 10 = 0) from a quotation (g % 4 = 0), 100 of 100.
    expect(committedTotal(await committedDrafts(db, 1, 41, 0))).toBe('10000.00');
    // The invoice being validated is not committed on top of itself.
    const [validating] = await db('invoices').where({ invoicenumber: 'INV-40' }).pluck<number[]>('id');
    expect(committedTotal(await committedDrafts(db, 1, 41, validating as number))).toBe('9900.00');
    const open = await openDueByDocument(db, 1, 42);
    const [counted] = await db('invoices').where({ partner_id: 42, invoicestatus: 'open' }).count<Array<{ n: string }>>({ n: '*' });
    expect(open).toHaveLength(Number(counted?.n));
    expect(open[0]).toEqual({ invoicetype: 'invoiceout', currency: null, exchange_rate: null, due: expect.any(String) });
    expect(sum(open.map((d) => d.due)).toFixed(2)).toBe((100 * Number(counted?.n)).toFixed(2));
  });

  it("reads, for any mix of a `both` partner's documents, the exposure the rule says: what it will owe as a customer", async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    let partner = 1000;
    const document = fc.record({
      invoicetype: fc.constantFrom(...invoicing.invoiceTypes),
      invoicestatus: fc.constantFrom<invoicing.InvoiceStatus>('draft', 'proforma', 'open', 'paid', 'cancelled'),
      converted: fc.boolean(),
      cents: fc.integer({ min: 1, max: 1_000_000 }),
      paidCents: fc.integer({ min: 0, max: 1_000_000 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(document, { maxLength: 12 }), async (drawn) => {
        partner += 1;
        const documents: ExposureDocument[] = drawn.map((d) => {
          const total = dec(d.cents).div(100);
          const paid = d.invoicestatus === 'paid' ? total : dec(Math.min(d.paidCents, d.cents)).div(100);
          return { ...d, total: total.toFixed(2), due: total.minus(paid).toFixed(2) };
        });
        const ids: number[] = [];
        for (const [i, d] of documents.entries()) {
          const [row] = await db('invoices')
            .insert({
              org_id: 1,
              partner_id: partner,
              invoicetype: d.invoicetype,
              invoicestatus: d.invoicestatus,
              invoicenumber: `P${partner}-${i}`,
              invoicedatetime: new Date(),
              converted_from_quotation_id: d.converted ? partner * 1000 + i : null,
              invoicetotal: d.total,
              amount_paid: dec(d.total).minus(dec(d.due)).toFixed(2),
            })
            .returning<Array<{ id: number }>>('id');
          ids.push(row!.id);
        }
        const expected = customerExposure(documents);
        expect(committedTotal(await committedDrafts(db, 1, partner, 0))).toBe(expected.committed.toFixed(2));
        expect(ownReceivable(await openDueByDocument(db, 1, partner)).toFixed(2)).toBe(expected.receivable.toFixed(2));
        // The document being validated is left out of what the others commit.
        const validating = documents.findIndex((d) => d.converted && d.invoicetype === 'invoiceout' && d.invoicestatus === 'draft');
        if (validating >= 0) {
          expect(committedTotal(await committedDrafts(db, 1, partner, ids[validating]!))).toBe(
            expected.committed.minus(dec(documents[validating]!.total)).toFixed(2),
          );
        }
      }),
      { seed, numRuns: 60 },
    );
  });
});
