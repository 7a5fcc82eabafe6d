import { catalog } from '@bo/contracts';
import { AmqpBus, createLogger } from '@bo/runtime';

type Product = catalog.LookupReply['products'][number];

export interface CatalogStub {
  /** Products the stub answers as missing (unknown or deleted); every other positive id is a `service` product. */
  missing: Set<number>;
  /** Products answered as given instead of the default one. */
  products: Map<number, Partial<Product>>;
  /** Locations the stub knows, besides none by default. */
  locations: Set<string>;
  /** Lookups answered so far. */
  calls: number;
  stop(): Promise<void>;
}

/** The product the stub answers for an id nobody configured: a fee line needs no stock. */
export function stubProduct(id: number, over: Partial<Product> = {}): Product {
  return {
    id,
    name: `Product ${id}`,
    description: null,
    price: 0,
    sku: null,
    uom: null,
    type: 'service',
    tax_rate: 0,
    tax_category: null,
    ...over,
  };
}

/**
 * A stand-in for the catalog service on a test's bus prefix, answering `catalog.lookup` (the only
 * operation sales and invoicing call), for integration tests of those services: every positive
 * product id is a live `service` product unless listed in `missing`; variants and locations exist
 * only when added. Stopping it makes catalog unreachable, as a catalog outage would.
 */
export async function startCatalogStub(opts: { amqpUrl: string; prefix: string }): Promise<CatalogStub> {
  const bus = new AmqpBus({ url: opts.amqpUrl, prefix: opts.prefix, log: createLogger('catalog-stub', 'silent') });
  await bus.connect();
  let stopped: Promise<void> | undefined;
  const stub: CatalogStub = {
    missing: new Set(),
    products: new Map(),
    locations: new Set(),
    calls: 0,
    stop() {
      // Once: a test may stop it to play an outage and its service's stop then finds it stopped.
      stopped ??= (async () => {
        await bus.close();
        // The queue goes too, so requests find no route (503 at once) instead of waiting in it.
        await bus.destroyTopology({ exchanges: false });
      })();
      return stopped;
    },
  };
  await bus.serve('catalog', [catalog.lookup.name], async (_operation, payload) => {
    stub.calls++;
    const req = catalog.lookup.request.parse(payload);
    const products = (req.product_ids ?? []).filter((id) => !stub.missing.has(id)).map((id) => stubProduct(id, stub.products.get(id)));
    const locations = (req.location_ids ?? [])
      .filter((id) => stub.locations.has(id))
      .map((id) => ({
        warehouse_id: '1',
        warehouse_name: 'Main Warehouse',
        location_id: id,
        location_name: `Location ${id}`,
        is_default: false,
      }));
    return { ok: true, status: 200, body: { message: 'Catalog records found', products, variants: [], locations } };
  });
  return stub;
}
