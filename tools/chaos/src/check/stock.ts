import { field } from '../client';
import { queryEventually } from '../database';
import { examples, type Check, type Violation } from './types';

const q4 = (v: unknown) => Math.round(Number(v ?? 0) * 10_000);

/**
 * Stock equals its ledger, and a validated document moves each product once: per product and location the quantity is the sum of the move lines'
 * changes and the last line's new stock; each line starts where the previous one of that product
 * and location ended (no move computed from a stale quantity); the API's product stock is the sum
 * over locations.
 */
export const stockCheck: Check = {
  name: 'stock',
  title: 'product stock equals the sum of its ledger moves (database and API)',
  async run(ctx) {
    const rows = await queryEventually<{
      org_id: number;
      product_id: number;
      location_id: string;
      quantity: string | null;
      ledger: string | null;
      last_new: string | null;
      lines: string;
    }>(
      ctx.pool,
      `with l as (
         select product_id, location_id, sum(change) as ledger, (array_agg(new_stock order by id desc))[1] as last_new, count(*) as lines
           from catalog.stock_move_lines group by 1, 2)
       select coalesce(q.org_id, p.org_id) as org_id, coalesce(q.product_id, l.product_id) as product_id,
              coalesce(q.location_id, l.location_id)::text as location_id, q.quantity, l.ledger, l.last_new, coalesce(l.lines, 0) as lines
         from catalog.stock_quantities q
         full join l on l.product_id = q.product_id and l.location_id = q.location_id
         left join catalog.products p on p.id = l.product_id`,
    );
    const wrong: unknown[] = [];
    const perProduct = new Map<string, number>();
    for (const r of rows) {
      if (q4(r.quantity) !== q4(r.ledger) || q4(r.quantity) !== q4(r.last_new)) {
        wrong.push({
          product_id: r.product_id,
          location_id: r.location_id,
          quantity: r.quantity,
          ledger_sum: r.ledger,
          last_new_stock: r.last_new,
          lines: Number(r.lines),
        });
      }
      const k = `${r.org_id}/${r.product_id}`;
      perProduct.set(k, (perProduct.get(k) ?? 0) + q4(r.ledger));
    }
    const broken = await queryEventually<Record<string, unknown>>(
      ctx.pool,
      `select * from (
         select move_id, product_id, location_id, previous_stock,
                lag(new_stock) over (partition by product_id, location_id order by id) as before
           from catalog.stock_move_lines) x
        where before is not null and previous_stock <> before limit 20`,
    );

    const apiWrong: unknown[] = [];
    let listed = 0;
    for (const org of ctx.orgs) {
      for (let page = 1; ; page++) {
        const res = await ctx.client.read(org, '/inventory/getproducts', { org_id: String(org), page_number: page, page_size: 100 });
        if (res.status !== 200) {
          apiWrong.push({ org, page, status: res.status, code: res.code });
          break;
        }
        for (const p of (res.body?.['products'] ?? []) as Array<{ id: number; stock: number }>) {
          listed += 1;
          const ledger = perProduct.get(`${org}/${p.id}`) ?? 0;
          if (q4(p.stock) !== ledger) apiWrong.push({ org, product_id: p.id, api_stock: p.stock, ledger_sum: ledger / 10_000 });
        }
        if (!field(res.body, 'pagination', 'has_next')) break;
      }
    }
    // Stock follows validated documents exactly once: one ledger move per document and product.
    const twice = await queryEventually<Record<string, unknown>>(
      ctx.pool,
      `select org_id, document_type, document_id, product_id, count(*)::int as moves from catalog.stock_moves
        where source = 'document' group by 1, 2, 3, 4 having count(*) > 1 limit 20`,
    );
    const violations: Violation[] = [];
    if (twice.length)
      violations.push({ message: `${twice.length} documents moved a product's stock more than once`, evidence: examples(twice) });
    if (wrong.length)
      violations.push({
        message: `${wrong.length} product locations whose quantity is not the sum of their moves`,
        evidence: examples(wrong),
      });
    if (broken.length)
      violations.push({
        message: `${broken.length} move lines do not start where the previous move of their product and location ended`,
        evidence: examples(broken),
      });
    if (apiWrong.length)
      violations.push({
        message: `${apiWrong.length} products listed by the API with a stock other than their ledger's`,
        evidence: examples(apiWrong),
      });
    return { summary: `${perProduct.size} products over ${rows.length} product locations, ${listed} listed by the API`, violations };
  },
};
