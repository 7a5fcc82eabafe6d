import type { TestSystem } from './system';

/**
 * Creates catalog products through the gateway and answers their ids: every document line names a
 * live catalog product. `service` by default (work and fees: no stock moves); pass `inventory` where
 * a test is about stock.
 */
export async function newProducts(
  sys: Pick<TestSystem, 'post'>,
  names: string[],
  opts: { org?: 1 | 2; type?: 'inventory' | 'service' | 'consumable' } = {},
): Promise<number[]> {
  const org = opts.org ?? 1;
  const ids: number[] = [];
  for (const name of names) {
    const res = await sys.post(
      '/inventory/editproduct',
      { org_id: String(org), userid: 'e2e', name, type: opts.type ?? 'service' },
      { org },
    );
    if (res.statusCode !== 200) throw new Error(`creating product ${name} answered ${res.statusCode}: ${JSON.stringify(res.body)}`);
    ids.push(res.body.product.id as number);
  }
  return ids;
}
