import { catalog } from '@bo/contracts';
import { dec } from '@bo/kernel';
import { filledIn, handler, recordEvent, statementEvent, unlessRefused, type Knex } from '@bo/runtime';
import { productRefusals } from './product-refusals';
import { findCategory } from '../category/category.repository';
import { ensureDefaultLocation, type LocationJoinRow } from '../location/location.repository';
import { moveSku } from '../sku/sku.registry';
import { defaultLocationTarget } from '../stock/adjustment';
import { recordStockAdjusted, recordStockMove, type RecordedMove } from '../stock/stock.ledger';
import { decideProductChanges, decideProductEdit, editMovesStock } from './decide-product-edit';
import { carriesStock } from './product-rules';
import { toProductRecord, type ProductRow } from './product.record';
import {
  findLiveProduct,
  loadProductView,
  productEditAlone,
  quantityAt,
  readProductEdit,
  totalStock,
  updateProduct,
} from './product.repository';

type EditRequest = catalog.EditProductRequestOf;

const MESSAGE = 'Product updated successfully';

/**
 * Load → decide → store, optimistic as a rule for an edit of the product's fields: the product read
 * with no lock (its record, its stock, the category the request names), the edit decided
 * (decideProductEdit), and stored with its event as one statement only while the product is the row
 * read (`alone`). An edit that sets the stock (a move of it) or moves the SKU to another key, a
 * refusal, or a product changed since the read, goes the usual way (`apply`): the product's lock,
 * the same changes decided (decideProductChanges), the SKU moved, the stock set, the record read
 * back.
 */
export const editProductHandler = handler(catalog.editProduct, {
  alone: async (req, ctx) => {
    if (editMovesStock(req)) return undefined;
    const { state, read } = await readProductEdit(ctx.db, ctx.orgId, req.product_id, req.category_id ?? undefined);
    const edit = unlessRefused(() => decideProductEdit(state, req));
    if (!edit || read === null) return undefined;
    // The row's updated_at is the statement's: filled in from it.
    const record = { ...edit.record, updated_at: filledIn<string>() };
    return {
      ...productEditAlone(ctx.orgId, edit, ctx.userId ?? null, read),
      events: [statementEvent(catalog.productUpdated, ctx.orgId, record)],
      reply: { message: MESSAGE, product: record },
    };
  },
  apply: async (req, ctx) => {
    // Made outside the edit's transaction: the defaults must exist, committed, whoever else needs them.
    const defaultLocation = editMovesStock(req) ? await ensureDefaultLocation(ctx.db, ctx.orgId) : null;
    return ctx.db.transaction(async (trx) => {
      const current = await findLiveProduct(trx, ctx.orgId, req.product_id, { lock: true });
      const category = req.category_id ? await findCategory(trx, ctx.orgId, req.category_id) : undefined;
      const { changes, movesSku } = decideProductChanges(current, req, category);
      if (movesSku) await moveSku(trx, ctx.orgId, changes.sku as string | null, { kind: 'product', id: current.id });

      // The fields change before the stock does, so the stock move's event names the product as edited
      // (its new SKU); a refusal below still rolls both back.
      const product = await updateProduct(trx, current.id, changes, ctx.userId ?? null);
      const move = req.stock !== undefined && defaultLocation ? await setTotalStock(trx, ctx, product, req, defaultLocation) : null;
      if (!carriesStock(product.type) && !dec(await totalStock(trx, product.id)).isZero()) {
        throw productRefusals.stockStillHeld(product.id, product.type);
      }

      const record = toProductRecord(await loadProductView(trx, ctx.orgId, current.id));
      await recordEvent(trx, catalog.productUpdated, ctx.orgId, record);
      if (move) await recordStockAdjusted(trx, ctx.orgId, move);
      return { message: MESSAGE, product: record };
    });
  },
});

/** `stock` on edit is the product's new total, reached by moving the default location only. */
async function setTotalStock(
  trx: Knex.Transaction,
  ctx: { orgId: number; userId?: string },
  product: ProductRow,
  req: EditRequest,
  defaultLocation: LocationJoinRow,
): Promise<RecordedMove | null> {
  const requested = req.stock as string;
  if (!carriesStock(product.type) && !dec(requested).isZero()) throw productRefusals.stockOnStocklessProduct(product.type);
  const total = await totalStock(trx, product.id);
  if (dec(total).equals(dec(requested))) return null;
  const atDefault = await quantityAt(trx, product.id, defaultLocation.location_id);
  const target = defaultLocationTarget(requested, total, atDefault);
  if (target === null) {
    throw productRefusals.stockBelowOtherLocations(requested, dec(total).minus(dec(atDefault)).toFixed());
  }
  return recordStockMove(trx, {
    orgId: ctx.orgId,
    product,
    source: 'product_edit',
    adjustmentType: 'product_edit',
    reference: 'Product edit',
    userId: ctx.userId,
    targets: [{ location: defaultLocation, quantity: target.toFixed() }],
  });
}
