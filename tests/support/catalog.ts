import type { TestSystem } from './system';

/**
 * Creates catalog products through the gateway and answers their ids: every document line names a
 * live catalog product. `service` by default (work and fees: no stock moves); pass `inventory` where
 * a test is about stock.
 */
export async function newProducts(
  sys: Pick<TestSystem, 'clientOf'>,
  names: string[],
  opts: { org?: 1 | 2; type?: 'inventory' | 'service' | 'consumable' } = {},
): Promise<number[]> {
  const org = opts.org ?? 1;
  const ids: number[] = [];
  for (const name of names) {
    const { product } = await sys.clientOf(org).catalog.product.create({ org_id: org, userid: 'e2e', name, type: opts.type ?? 'service' });
    ids.push(product.id);
  }
  return ids;
}
