import { randomUUID } from 'node:crypto';
import { resolveCatalogLines, type BaseConfig, type Bus } from '@bo/runtime';
import type { LineRow } from '../invoice/invoice.record';
import { lineField } from '../invoice/create-input';

/** Confirms that every product, variant and location a contract's lines name is still in the catalog. */
export type ChildLineCheck = (orgId: number, lines: readonly LineRow[], meta?: { userId?: string; requestId?: string }) => Promise<void>;

/**
 * A child copies its parent's lines with their snapshots; before it is made, catalog confirms the
 * records they name still exist (a refusal names `line_items.<n>.product_id`). Called with no
 * transaction open.
 */
export function childLineCheck(deps: { bus: Bus; config: BaseConfig }): ChildLineCheck {
  return async (orgId, lines, meta = {}) => {
    await resolveCatalogLines(
      { bus: deps.bus, config: deps.config, orgId, userId: meta.userId, requestId: meta.requestId ?? randomUUID() },
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
  };
}
