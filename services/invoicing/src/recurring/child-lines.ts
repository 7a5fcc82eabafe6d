import { randomUUID } from 'node:crypto';
import { caller, type BaseConfig, type Bus, type HandlerContext } from '@bo/runtime';
import { resolveCatalogLines } from '@bo/billing';
import type { LineRow } from '../invoice/invoice.record';
import { lineField } from '../invoice/create-input';

/** Confirms that every product, variant and location a contract's lines name is still in the catalog. */
export type ChildLineCheck = (orgId: number, lines: readonly LineRow[]) => Promise<void>;

/**
 * A child copies its parent's lines with their snapshots; before it is made, catalog confirms the
 * records they name still exist (a refusal names `line_items.<n>.product_id`). Called with no
 * transaction open.
 */
export async function checkChildLines(ctx: Pick<HandlerContext, 'call'>, lines: readonly LineRow[]): Promise<void> {
  await resolveCatalogLines(
    ctx,
    lines.map((l) => ({
      product_id: l.product_id,
      variant_id: l.variant_id ?? undefined,
      location_id: l.location_id ?? undefined,
      product_name: l.product_name ?? undefined,
      description: l.description ?? undefined,
      price: l.price,
    })),
    lineField,
  );
}

/** The check as the scheduler runs it, for a contract of any organization. */
export function childLineCheck(deps: { bus: Bus; config: BaseConfig }): ChildLineCheck {
  return (orgId, lines) => checkChildLines({ call: caller(deps.bus, deps.config, { orgId, requestId: randomUUID() }) }, lines);
}
