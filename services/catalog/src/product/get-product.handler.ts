import { catalog } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { toProductRecord } from './product.record';
import { loadProductView } from './product.repository';

export const getProductHandler = handler(catalog.getProduct, async (req, ctx) => {
  return { message: 'Product found', product: toProductRecord(await loadProductView(ctx.db, ctx.orgId, req.product_id)) };
});
