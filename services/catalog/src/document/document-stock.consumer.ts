import { catalog, consumer, type EventOf, type invoicing } from '@bo/contracts';
import {
  bindConsumer,
  numberedRows,
  recordEvent,
  statementEvent,
  storeWithCommit,
  type Knex,
  type Logger,
  type PlannedStore,
  type SqlStatement,
} from '@bo/runtime';
import { parseStringId } from '../ids';
import { ensureDefaultLocation, type LocationJoinRow } from '../location/location.repository';
import { decideDocumentStock, type DocumentToMove, type Unmoved } from './decide-document-stock';
import { documentMoves } from './document-moves';
import { defaultsMissing, planDocumentMoves, type DocumentMovesPlan, type DocumentMovesState } from './plan-document-moves';

/**
 * Stock follows validated invoices (docs/design.md): each `invoicing.invoice.validated` becomes one
 * ordinary ledger move per inventory product it names, referencing the document. A move is made once
 * per (organization, document, product), the ledger's natural key (catalog migration 004): a
 * document whose move of a product exists moves it no more, so an event delivered again after the
 * inbox forgot its id moves nothing twice. Documents may take a location below zero (the goods left
 * whatever the ledger held): the move is recorded and `catalog.stock.negative` says so.
 *
 * A batch is load → decide → store, two statements whatever its size and no transaction: one read of
 * everything its moves are decided on (loadDocumentStock), planDocumentMoves deciding every move in
 * memory, each from the quantities the batch's earlier moves left, and one statement writing the
 * moves, their lines, the quantities and the events with the inbox rows (storeMoves). The store holds
 * each moved product to the stock version it was read at (every stock move bumps it, migration 008):
 * should a move of one of them have committed since the load, the statement fails whole and the batch
 * is loaded and decided again. A batch that moves no stock, the common case (services, products moved
 * already, unknown ones), stores its inbox rows alone. Only a batch moving stock of an organization
 * with no default location yet runs in the inbox transaction (`batch`), which makes the location and
 * then decides the same way under the products' locks.
 */
export const documentStockConsumer = bindConsumer(consumer.catalogDocuments).to({
  plan: {
    load: (events) => loadDocumentStock(toMove(events)),
    store(events, loaded, log) {
      const documents = toMove(events);
      const read = stateOf(loaded as unknown as LoadedMoves);
      const { moves, unmoved } = decideDocumentStock(documents, read);
      if (!moves) {
        for (const u of unmoved) reportUnmoved(log, u);
        return { writes: [] };
      }
      if (defaultsMissing(documents, read).length) return 'in transaction';
      return storeMoves(decided(documents, read, log), read.now, read.stockVersions);
    },
  },
  async batch(trx, events, log) {
    const documents = toMove(events);
    const state = await lockAndLoadMoves(trx, documents);
    for (const orgId of defaultsMissing(documents, state)) state.defaults.set(orgId, await ensureDefaultLocation(trx, orgId));
    const plan = decided(documents, state, log);
    if (!plan.moves.length) return;
    await storeWithCommit(trx, storeMoves(plan, state.now).writes);
    for (const event of plan.events) {
      if (event.type === 'adjusted') await recordEvent(trx, catalog.stockAdjusted, event.orgId, event.data);
      else await recordEvent(trx, catalog.stockNegative, event.orgId, event.data);
    }
  },
});

/** The batch's moves planned (planDocumentMoves), with what it leaves unmoved reported. */
function decided(documents: readonly DocumentToMove[], state: DocumentMovesState, log: Logger): DocumentMovesPlan {
  const plan = planDocumentMoves(documents, state);
  for (const u of plan.unmoved) reportUnmoved(log, u);
  for (const { eventId, locationId } of plan.unknownLocations)
    log.warn(
      { event_id: eventId, location_id: locationId },
      'validated document names a location this organization does not have; the default location is used',
    );
  return plan;
}

/** Each validated document of the batch with its moves per product (document-moves.ts). */
function toMove(events: ReadonlyArray<EventOf<typeof invoicing.invoiceValidated>>): DocumentToMove[] {
  return events.map(({ id, org_id, data }) => ({
    eventId: id,
    orgId: org_id,
    document: { type: data.invoicetype, id: data.invoice_id, number: data.invoicenumber },
    moves: documentMoves(data.invoicetype, data.lines ?? [], data.restock),
  }));
}

function reportUnmoved(log: Logger, { eventId, document, productId, why }: Unmoved): void {
  if (why === 'moved already')
    log.info({ event_id: eventId, product_id: productId, document }, 'document already moved this product; nothing moved again');
  else
    log.warn(
      { event_id: eventId, product_id: productId, document },
      'validated document names a product this organization does not have; no stock moved',
    );
}

/**
 * Everything a batch's moves are decided on (DocumentMovesState), as one statement answering one row:
 * the products its documents name (a deleted one still had its goods moved) with their stock
 * versions, the moves their documents made already, the locations the lines name and each
 * organization's default location, every quantity of the products, one id drawn per product a
 * document names, and the time the moves are made at.
 */
function loadDocumentStock(documents: readonly DocumentToMove[]): SqlStatement {
  const named = documents.flatMap(({ orgId, moves }) => moves.map((m) => [orgId, m.productId] as const));
  const namedLocations = documents.flatMap(({ orgId, moves }) =>
    moves.flatMap((m) =>
      [...m.changes.keys()].flatMap((l) => {
        const id = l === null ? null : parseStringId(l);
        return id === null ? [] : [[orgId, id] as const];
      }),
    ),
  );
  return {
    sql: `select (select coalesce(json_agg(json_build_object('org_id', p.org_id, 'id', p.id, 'type', p.type, 'sku', p.sku,
                                                         'stock_version', p.stock_version::text)), '[]')
                    from products p where (p.org_id, p.id) in (select * from unnest(?::int[], ?::int[]))) as products,
                 (select coalesce(json_agg(json_build_object('org_id', m.org_id, 'document_id', m.document_id, 'product_id', m.product_id)), '[]')
                    from stock_moves m
                   where m.document_id is not null and (m.org_id, m.document_id) in (select * from unnest(?::int[], ?::int[]))) as moved,
                 (select coalesce(json_agg(json_build_object('org_id', l.org_id, 'location_id', l.id, 'location_name', l.name, 'is_default', l.is_default,
                                                             'warehouse_id', w.id, 'warehouse_name', w.name, 'named', (l.org_id, l.id) in (select * from unnest(?::int[], ?::int[])))), '[]')
                    from locations l join warehouses w on w.id = l.warehouse_id and w.org_id = l.org_id
                   where (l.org_id, l.id) in (select * from unnest(?::int[], ?::int[])) or (l.org_id = any(?::int[]) and l.is_default)) as locations,
                 (select coalesce(json_agg(json_build_object('product_id', q.product_id, 'location_id', q.location_id, 'quantity', q.quantity::text)), '[]')
                    from stock_quantities q where q.product_id = any(?::int[])) as quantities,
                 array(select nextval(pg_get_serial_sequence('stock_moves', 'id'))::text from ${numberedRows('?::int')} order by n) as move_ids,
                 now() as now`,
    bindings: [
      named.map(([org]) => org),
      named.map(([, id]) => id),
      documents.map((d) => d.orgId),
      documents.map((d) => d.document.id),
      namedLocations.map(([org]) => org),
      namedLocations.map(([, id]) => id),
      namedLocations.map(([org]) => org),
      namedLocations.map(([, id]) => id),
      [...new Set(documents.map((d) => d.orgId))],
      [...new Set(named.map(([, id]) => id))],
      named.length,
    ],
  };
}

interface LoadedMoves {
  products: Array<DocumentMovesState['products'][number] & { stock_version: string }>;
  moved: DocumentMovesState['moved'];
  locations: Array<LocationJoinRow & { org_id: number; named: boolean }>;
  quantities: DocumentMovesState['quantities'];
  move_ids: string[];
  now: Date;
}

/** The load's row as the plan reads it, with each product's stock version as read (by product id). */
function stateOf(row: LoadedMoves): DocumentMovesState & { defaults: Map<number, LocationJoinRow>; stockVersions: Map<number, string> } {
  const defaults = new Map<number, LocationJoinRow>();
  for (const l of row.locations) if (l.is_default) defaults.set(l.org_id, l);
  return {
    products: row.products,
    moved: row.moved,
    locations: row.locations.filter((l) => l.named),
    defaults,
    quantities: row.quantities,
    moveIds: row.move_ids,
    now: new Date(row.now),
    stockVersions: new Map(row.products.map((p) => [p.id, p.stock_version])),
  };
}

/**
 * Locks every product the batch names, in id order (the order every stock change takes its locks
 * in), then reads what the moves are decided on (loadDocumentStock): two statements sent in one
 * write, the lock first, so the read's snapshot, taken once the lock is held, has every earlier move
 * of those products in it.
 */
async function lockAndLoadMoves(
  trx: Knex.Transaction,
  documents: readonly DocumentToMove[],
): Promise<DocumentMovesState & { defaults: Map<number, LocationJoinRow> }> {
  const named = documents.flatMap(({ orgId, moves }) => moves.map((m) => [orgId, m.productId] as const));
  const lock = trx.raw('select id from products where (org_id, id) in (select * from unnest(?::int[], ?::int[])) order by id for update', [
    named.map(([org]) => org),
    named.map(([, id]) => id),
  ]);
  const read = loadDocumentStock(documents);
  const load = trx.raw(read.sql, read.bindings);
  // The lock's failure is the one to answer: the read behind it fails only because the transaction is aborted.
  const [locked, loaded] = await Promise.allSettled([lock, load]);
  if (locked.status === 'rejected') throw locked.reason;
  if (loaded.status === 'rejected') throw loaded.reason;
  return stateOf((loaded.value as { rows: LoadedMoves[] }).rows[0] as LoadedMoves);
}

/**
 * The plan's writes and events: its moves (created at the load's `now`, as the events tell it), their
 * lines and the quantities they leave. With `stockVersions` (the planned store, no lock held), the
 * moved products are first locked in id order and their stock versions bumped, each only while it is
 * the one read (`planned1`): a move committed since the load makes the count differ and the
 * statement fail whole. The other writes read nothing of each other: each move's id was drawn by the load.
 */
function storeMoves(plan: DocumentMovesPlan, now: Date, stockVersions?: ReadonlyMap<number, string>): PlannedStore {
  const moves = JSON.stringify(
    plan.moves.map((m) => ({
      id: m.id,
      org_id: m.org_id,
      product_id: m.product_id,
      document_type: m.document.type,
      document_id: m.document.id,
      document_number: m.document.number,
    })),
  );
  const lines = JSON.stringify(
    plan.lines.map((l) => ({
      move_id: l.move_id,
      org_id: l.org_id,
      product_id: l.product_id,
      location_id: l.location_id,
      previous_stock: l.previous.toFixed(),
      new_stock: l.next.toFixed(),
      change: l.change.toFixed(),
    })),
  );
  const quantities = JSON.stringify(
    plan.quantities.map((q) => ({
      org_id: q.org_id,
      product_id: q.product_id,
      location_id: q.location_id,
      quantity: q.quantity.toFixed(),
    })),
  );
  const products = [...new Set(plan.moves.map((m) => m.product_id))].sort((a, b) => a - b);
  const guard: PlannedStore['writes'] = stockVersions
    ? [
        {
          sql: `update products p set stock_version = p.stock_version + 1
                  from (select q.id from products q where q.id = any(?::int[]) order by q.id for update) l,
                       unnest(?::int[], ?::bigint[]) as v(id, read)
                 where p.id = l.id and p.id = v.id and p.stock_version = v.read returning 1`,
          bindings: [products, products, products.map((id) => stockVersions.get(id) ?? null) as string[]],
          rows: products.length,
        },
      ]
    : [];
  return {
    writes: [
      ...guard,
      {
        // As recordStockMove writes a document's move: its type as the adjustment type, its number as the reference.
        sql: `insert into stock_moves (id, org_id, product_id, source, adjustment_type, reference, notes, created_by, document_type, document_id,
                                       document_number, created_at)
              select m.id, m.org_id, m.product_id, 'document', m.document_type, m.document_number, null, null, m.document_type, m.document_id,
                     m.document_number, ?::timestamptz
                from jsonb_to_recordset(?::jsonb) as m(id bigint, org_id int, product_id int, document_type text, document_id int, document_number text)
              returning 1`,
        bindings: [now, moves],
        rows: plan.moves.length,
      },
      {
        sql: `insert into stock_move_lines (move_id, org_id, product_id, location_id, previous_stock, new_stock, change)
              select l.move_id, l.org_id, l.product_id, l.location_id, l.previous_stock, l.new_stock, l.change
                from jsonb_to_recordset(?::jsonb) as l(move_id bigint, org_id int, product_id int, location_id int, previous_stock numeric, new_stock numeric, change numeric)
              returning 1`,
        bindings: [lines],
        rows: plan.lines.length,
      },
      {
        sql: `insert into stock_quantities (org_id, product_id, location_id, quantity)
              select q.org_id, q.product_id, q.location_id, q.quantity
                from jsonb_to_recordset(?::jsonb) as q(org_id int, product_id int, location_id int, quantity numeric)
              on conflict (product_id, location_id) do update set quantity = excluded.quantity, updated_at = now()
              returning 1`,
        bindings: [quantities],
        rows: plan.quantities.length,
      },
    ],
    events: plan.events.map((event) =>
      event.type === 'adjusted'
        ? statementEvent(catalog.stockAdjusted, event.orgId, event.data)
        : statementEvent(catalog.stockNegative, event.orgId, event.data),
    ),
  };
}
