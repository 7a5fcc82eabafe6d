import { catalog } from '@bo/contracts';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decideProductDeletion } from './decide-deletion';
import { lockAndReadProductDeletion, productDeletionAlone, readProductDeletion, storeProductDeletion } from './product.repository';

const MESSAGE = 'Product deleted successfully';

/**
 * Soft delete: the product and its variants leave lists and lookups and free their SKUs; stock
 * quantities and moves stay as history. Load → decide → store, optimistic as a rule: the product,
 * its record and its live variants read with no lock, the delete decided (decideProductDeletion),
 * and stored with its event as one statement only while the product is the row read (`alone`). An
 * edit, a move of its stock or a variant made meanwhile, or a product not found, goes the usual way
 * (`apply`): the product's lock, then the same read and decision, stored with the statement that
 * commits.
 */
export const deleteProductHandler = handler(catalog.deleteProduct, {
  alone: async (req, ctx) => {
    const { state, read } = await readProductDeletion(ctx.db, ctx.orgId, req.product_id);
    const deletion = unlessRefused(() => decideProductDeletion(state, req.product_id));
    if (!deletion || read === null) return undefined;
    return {
      ...productDeletionAlone(ctx.orgId, deletion, ctx.userId ?? null, read),
      events: [statementEvent(catalog.productDeleted, ctx.orgId, deletion.record)],
      reply: { message: MESSAGE },
    };
  },
  apply: async (req, ctx) => {
    return ctx.db.transaction(async (trx) => {
      const deletion = decideProductDeletion(await lockAndReadProductDeletion(trx, ctx.orgId, req.product_id), req.product_id);
      await storeProductDeletion(trx, ctx.orgId, deletion, ctx.userId ?? null);
      await recordEvent(trx, catalog.productDeleted, ctx.orgId, deletion.record);
      return { message: MESSAGE };
    });
  },
});
