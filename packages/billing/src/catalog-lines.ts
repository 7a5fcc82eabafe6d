import { catalog, type FieldError, type LineItemInput } from '@bo/contracts';
import { CallError, AppError, type HandlerContext } from '@bo/runtime';
import { catalogLineRefusals } from './billing-refusals';

/** A line's catalog snapshot: what the document keeps whatever the catalog does later. */
export interface LineSnapshot {
  product_id: string;
  variant_id: string | null;
  location_id: string | null;
  product_name: string | null;
  description: string | null;
  price: string;
  /** The line's VAT rate, else its catalog default (the variant's, else the product's). */
  tax_rate: string;
  /** The line's VAT category; with no rate of its own, the catalog default's; null: S or Z by the rate. */
  tax_category: string | null;
  sku: string | null;
  uom: string | null;
}

/** A line as entered, completed from the catalog: every line has a price and a tax rate once resolved. */
export type ResolvedLine<L extends CatalogLine = LineItemInput> = Omit<L, keyof LineSnapshot> & LineSnapshot;

/** The line fields the catalog check reads. */
export type CatalogLine = Pick<LineItemInput, 'product_id' | 'variant_id' | 'location_id' | 'product_name' | 'description' | 'price'> & {
  tax_rate?: string | undefined;
  tax_category?: string | null | undefined;
};

/** Catalog ids are positive 32-bit integers; anything else names no record and is not asked about. */
function catalogIntId(value: string | undefined): number | null {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const n = Number(value);
  return n <= 2_147_483_647 ? n : null;
}

/**
 * Checks the products, variants and locations that lines name against the catalog, in one RPC, and
 * completes each line with its snapshot (docs/design.md "stock follows documents"). Called before any
 * transaction is opened: no connection or row lock is held while catalog answers. An unknown or
 * deleted record is a 400 naming each offending line and field (`fieldOf(index, 'product_id')`); a
 * catalog that cannot be asked is a transient 503 (the request wrote nothing and may be retried).
 */
export async function resolveCatalogLines<L extends CatalogLine>(
  ctx: Pick<HandlerContext, 'call'>,
  lines: readonly L[],
  fieldOf: (index: number, field: 'product_id' | 'variant_id' | 'location_id' | 'tax_rate') => string,
): Promise<Array<ResolvedLine<L>>> {
  if (lines.length === 0) return [];
  const productIds = uniq(lines.map((l) => catalogIntId(l.product_id)));
  const variantIds = uniq(lines.map((l) => catalogIntId(l.variant_id)));
  const locationIds = [...new Set(lines.flatMap((l) => (l.location_id === undefined ? [] : [l.location_id])))];
  const found = await lookup(ctx, { product_ids: productIds, variant_ids: variantIds, location_ids: locationIds });
  const products = new Map(found.products.map((p) => [p.id, p]));
  const variants = new Map(found.variants.map((v) => [v.id, v]));
  const locations = new Set(found.locations.map((l) => l.location_id));

  const errors: FieldError[] = [];
  const refuse = (i: number, field: 'product_id' | 'variant_id' | 'location_id' | 'tax_rate', what: string) => {
    const name = fieldOf(i, field);
    errors.push({ field: name, message: `${name}: ${what}` });
  };
  const resolved = lines.map((line, i) => {
    const productId = catalogIntId(line.product_id);
    const product = productId === null ? undefined : products.get(productId);
    if (!product) refuse(i, 'product_id', `product ${line.product_id} not found in the catalog`);
    let variant: catalog.LookupReply['variants'][number] | undefined;
    if (line.variant_id !== undefined) {
      const variantId = catalogIntId(line.variant_id);
      variant = variantId === null ? undefined : variants.get(variantId);
      if (!variant) refuse(i, 'variant_id', `variant ${line.variant_id} not found in the catalog`);
      else if (product && variant.parent_product_id !== product.id)
        refuse(i, 'variant_id', `variant ${line.variant_id} is not a variant of product ${product.id}`);
    }
    if (line.location_id !== undefined && !locations.has(line.location_id))
      refuse(i, 'location_id', `location ${line.location_id} not found`);
    // A line naming its rate keeps it (its category then its own, else S or Z by the rate); one naming
    // none takes the catalog's default as a pair: the variant's when it has one, else the product's.
    const fallback =
      variant?.tax_rate !== null && variant?.tax_rate !== undefined
        ? { rate: variant.tax_rate, category: variant.tax_category ?? null }
        : product && product.tax_rate !== null && product.tax_rate !== undefined
          ? { rate: product.tax_rate, category: product.tax_category ?? null }
          : null;
    const taxRate = line.tax_rate ?? (fallback ? String(fallback.rate) : undefined);
    if (taxRate === undefined && product) refuse(i, 'tax_rate', `the line names no tax_rate and product ${product.id} has no default`);
    const snapshot: LineSnapshot = {
      product_id: line.product_id,
      variant_id: line.variant_id ?? null,
      location_id: line.location_id ?? null,
      product_name: line.product_name || (variant?.variant_name ?? product?.name ?? null),
      description: line.description || fitting(product?.description) || null,
      price: line.price ?? String(variant?.price ?? product?.price ?? 0),
      tax_rate: taxRate ?? '0',
      tax_category: line.tax_rate !== undefined ? (line.tax_category ?? null) : (line.tax_category ?? fallback?.category ?? null),
      sku: variant?.sku ?? product?.sku ?? null,
      uom: product?.uom ?? null,
    };
    return { ...line, ...snapshot };
  });
  if (errors.some((e) => !e.field.endsWith('tax_rate'))) throw catalogLineRefusals.unknownCatalogRecords(errors);
  if (errors.length) throw catalogLineRefusals.linesWithoutTaxRate(errors);
  return resolved;
}

/** Line descriptions hold at most 2000 characters (a product's may hold more); cut without splitting a surrogate pair. */
const MAX_LINE_DESCRIPTION = 2000;
function fitting(text: string | null | undefined): string | null {
  if (!text || text.length <= MAX_LINE_DESCRIPTION) return text ?? null;
  return text.slice(0, MAX_LINE_DESCRIPTION).replace(/[\uD800-\uDBFF]$/, '');
}

function uniq(ids: Array<number | null>): number[] {
  return [...new Set(ids.filter((id): id is number => id !== null))];
}

async function lookup(
  ctx: Pick<HandlerContext, 'call'>,
  ids: { product_ids: number[]; variant_ids: number[]; location_ids: string[] },
): Promise<catalog.LookupReply> {
  try {
    return await ctx.call(catalog.lookup, ids, { what: 'the lines' });
  } catch (err) {
    if (!(err instanceof CallError)) throw err;
    // A 400 says what of the lines catalog refuses (an id of the wrong form, too many ids): the
    // caller's request is refused the same way, with catalog's errors.
    if (err.failure === 'refused' && err.status === 400) throw catalogLineRefusals.catalogRefusedLines(err.code, err.message, err.errors);
    // Anything else is no verdict on the lines. The lookup writes nothing and nothing here was
    // written yet, so even a time-out leaves the request safe to retry: 503, never recorded.
    const why =
      err.failure === 'timeout'
        ? 'no answer in time'
        : err.remoteStatus === undefined
          ? 'catalog service unavailable'
          : `${err.remoteStatus} ${err.detail}`;
    throw new AppError(
      503,
      'service_unavailable',
      `The catalog could not check the lines (${why}); nothing was written, retry later`,
    ).asTransient();
  }
}
