import { catalog, parseWith, type Operation, type RequestOf } from '@bo/contracts';
import { NotAsDecided, storeAlone, type OneStatementWrite } from '@bo/runtime';
import { formatDateTime } from '@bo/kernel';
import * as testing from '@bo/testkit';
import { catalogService } from '../src';
import {
  categoryEditAlone,
  categoryInsertAlone,
  readCategoryTree,
  toCategoryRecord,
  type CategoryRow,
} from '../src/category/category.repository';
import { decideCategoryEdit, decideNewCategory } from '../src/category/decide-category';
import { decideNewLocation, decideNewWarehouse } from '../src/location/decide-location';
import {
  locationInsertAlone,
  locationsQuery,
  toLocationRow,
  warehouseInsertAlone,
  type LocationJoinRow,
} from '../src/location/location.repository';
import { decideProductDeletion } from '../src/product/decide-deletion';
import { toProductRecord, type ProductView } from '../src/product/product.record';
import { decideNewProductAlone } from '../src/product/decide-new-product';
import { decideProductEdit } from '../src/product/decide-product-edit';
import {
  productDeletionAlone,
  productEditAlone,
  productInsertAlone,
  readProductDeletion,
  readProductEdit,
} from '../src/product/product.repository';
import { decideNewVariant } from '../src/variant/decide-variant';
import { toVariantRecord, type VariantRow } from '../src/variant/variant.record';
import { variantInsertAlone } from '../src/variant/variant.repository';
import { defaultLocationId, ok, refusal, snapshot } from './helpers';

/**
 * Catalog writes stored as one statement as a rule (`alone`): a store decided on what it read writes
 * nothing once that changed meanwhile (NotAsDecided, and the usual way runs instead), and each reply
 * tells what was stored.
 */
describe('catalog writes stored as one statement', () => {
  let svc: testing.TestService;
  beforeAll(async () => {
    svc = await testing.startTestService(catalogService);
  });
  afterAll(async () => {
    await svc?.stop();
  });

  /** A request as the service takes it, parsed by its operation's schema. */
  const request = <O extends Operation>(operation: O, payload: Record<string, unknown>): RequestOf<O> => {
    const parsed = parseWith(operation.request, { org_id: 1, ...payload });
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.value as RequestOf<O>;
  };
  const answered = { ok: true as const, status: 200, body: {} };
  const store = (write: Omit<OneStatementWrite, 'events' | 'reply'>) =>
    storeAlone(svc.db, { ...write, events: [], reply: {} }, undefined, answered);
  const call = (operation: string, payload: Record<string, unknown>, org = 1) => svc.call(operation, { userid: 'u1', ...payload }, org);
  /** Is the promise still unsettled after a while (a statement waiting for a lock)? */
  const stillWaiting = (promise: Promise<unknown>) =>
    Promise.race([
      promise.then(
        () => false,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200)),
    ]);
  /** A product's record as stored, read as a list reads it (deleted or not). */
  const storedRecord = async (id: number) => {
    const { rows } = await svc.db.raw<{ rows: ProductView[] }>(
      `select p.*, c.name as category_name, (select coalesce(sum(q.quantity), 0) from stock_quantities q where q.product_id = p.id) as stock
         from products p left join categories c on c.id = p.category_id where p.id = ?`,
      [id],
    );
    return toProductRecord(rows[0]!);
  };
  const categoryRow = async (id: string | number) =>
    (await svc
      .db('categories')
      .where({ id: Number(id) })
      .first()) as CategoryRow;

  describe('categories', () => {
    const create = async (payload: Record<string, unknown>, org = 1) => ok(await call('catalog.category.create', payload, org)).category;

    it('creates under a parent only while the parent is there, answering the category as stored', async () => {
      const parent = await create({ name: 'Parent for later' });
      const decided = decideNewCategory(request(catalog.createCategory, { name: 'Orphaned', parent_id: parent.id }));
      // The parent goes between the decision and its store (no operation deletes one; by hand here).
      await svc
        .db('categories')
        .where({ id: Number(parent.id) })
        .delete();
      const before = await snapshot(svc);
      await expect(store(categoryInsertAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect(await snapshot(svc)).toEqual(before);

      const root = await create({ name: 'Drinks', code: 'DRK', default_account: '4000' });
      const reply = ok(await call('catalog.category.create', { name: 'Juice', code: 'JUI', parent_id: root.id, taxable: false }));
      expect(reply).toEqual({ message: 'Category created successfully', category: toCategoryRecord(await categoryRow(reply.category.id)) });
      expect(reply.category).toMatchObject({ parent_id: root.id, code: 'JUI', taxable: false, default_account: null });
      expect(await categoryRow(reply.category.id)).toMatchObject({ created_by: 'u1', updated_by: 'u1' });
    });

    it('writes nothing when a code is taken by a category stored after the decision', async () => {
      const decided = decideNewCategory(request(catalog.createCategory, { name: 'Late', code: 'LATE' }));
      await create({ name: 'Early', code: 'late' });
      const before = await snapshot(svc);
      await expect(store(categoryInsertAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect(await snapshot(svc)).toEqual(before);
    });

    it('moves a category only while the line it hangs from is as read; the edit answers the category as stored', async () => {
      const a = await create({ name: 'A line' });
      const b = await create({ name: 'B line', parent_id: a.id });
      const c = await create({ name: 'C line' });
      const req = request(catalog.editCategory, { category_id: c.id, parent_id: b.id, name: 'C moved' });
      const read = await readCategoryTree(svc.db, 1, c.id, b.id);
      expect(read.line.map((l) => l.id)).toEqual([Number(b.id), Number(a.id)]);
      // A's row changes after the read (hung under C, as a concurrent edit would: the move would close a loop).
      await svc
        .db('categories')
        .where({ id: Number(a.id) })
        .update({ parent_id: Number(c.id) });
      const before = await snapshot(svc);
      await expect(store(categoryEditAlone(1, decideCategoryEdit(req, read), 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect(await snapshot(svc)).toEqual(before);
      await svc
        .db('categories')
        .where({ id: Number(a.id) })
        .update({ parent_id: null });

      const reply = ok(await call('catalog.category.edit', { category_id: c.id, parent_id: b.id, name: 'C moved', code: 'CM' }));
      const { parent_id, ...record } = toCategoryRecord(await categoryRow(c.id));
      expect(reply).toEqual({ message: 'Category updated successfully', category: record });
      expect(parent_id).toBe(b.id);
      expect(await categoryRow(c.id)).toMatchObject({ name: 'C moved', code: 'CM', updated_by: 'u1' });
    });

    it('waits for an edit of the line in flight, and writes nothing once it committed', async () => {
      const a = await create({ name: 'A flight' });
      const b = await create({ name: 'B flight' });
      const read = await readCategoryTree(svc.db, 1, b.id, a.id);
      const decided = decideCategoryEdit(request(catalog.editCategory, { category_id: b.id, parent_id: a.id }), read);
      const trx = await svc.db.transaction();
      await trx('categories')
        .where({ id: Number(a.id) })
        .update({ parent_id: Number(b.id) });
      const stored = store(categoryEditAlone(1, decided, 'u1'));
      // The store waits for the lock on A, then reads A as the edit left it.
      expect(await stillWaiting(stored)).toBe(true);
      await trx.commit();
      await expect(stored).rejects.toBeInstanceOf(NotAsDecided);
      expect((await categoryRow(b.id)).parent_id).toBeNull();
    });

    it('never lets concurrent moves close a loop, however each is stored', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await create({ name: `Ring ${i}` })).id);
      // Every category under every other, in rounds that each would close loops if all stood.
      const moves = [1, 2, 3, 4].flatMap((step) => ids.map((id, i) => [id, ids[(i + step) % ids.length]!] as const));
      const replies = await Promise.all(
        moves.map(([category, parent]) => call('catalog.category.edit', { category_id: category, parent_id: parent })),
      );
      for (const reply of replies.filter((r) => !r.ok))
        expect(refusal(reply)).toMatchObject({ code: 'validation_failed', errors: [{ field: 'parent_id' }] });
      expect(replies.some((r) => r.ok)).toBe(true);
      const rows = (await svc.db('categories').whereIn('id', ids.map(Number))) as CategoryRow[];
      const parentOf = new Map(rows.map((r) => [r.id, r.parent_id]));
      for (const row of rows) {
        const seen = new Set<number>();
        for (let at: number | null = row.id; at !== null; at = parentOf.get(at) ?? null) {
          expect(seen.has(at)).toBe(false);
          seen.add(at);
        }
      }
    });

    it("edits fields alone only where the category is the organization's", async () => {
      const theirs = await create({ name: 'Theirs' }, 2);
      const decided = decideCategoryEdit(request(catalog.editCategory, { category_id: theirs.id, name: 'Mine' }), null);
      await expect(store(categoryEditAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect((await categoryRow(theirs.id)).name).toBe('Theirs');

      const mine = await create({ name: 'Mine', code: 'MINE', default_account: '4200' });
      const reply = ok(await call('catalog.category.edit', { category_id: mine.id, code: null, taxable: false }));
      const { parent_id: _parent, ...record } = toCategoryRecord(await categoryRow(mine.id));
      expect(reply).toEqual({ message: 'Category updated successfully', category: record });
      expect(record).toMatchObject({ name: 'Mine', code: null, taxable: false, default_account: '4200' });
    });
  });

  describe('warehouses and locations', () => {
    const locationRow = async (id: string) =>
      toLocationRow(
        (await locationsQuery(
          svc.db,
          (
            await svc
              .db('locations')
              .where({ id: Number(id) })
              .first()
          ).org_id,
        )
          .where('l.id', Number(id))
          .first()) as LocationJoinRow,
      );

    it('creates a location only in a warehouse of the organization once it has its defaults, answering it as stored', async () => {
      // Organization 31 has no default location yet: its first write goes the usual way, which makes it.
      const [handmade] = await svc.db('warehouses').insert({ org_id: 31, name: 'Handmade' }).returning<Array<{ id: number }>>('id');
      const before = await snapshot(svc);
      await expect(
        store(locationInsertAlone(31, decideNewLocation({ warehouse_id: String(handmade!.id), name: 'Bay' }), 'u1')),
      ).rejects.toBeInstanceOf(NotAsDecided);
      const wh = ok(await call('catalog.warehouse.create', { action: 'create_warehouse', name: 'Quay' })).warehouse;
      // Another organization's warehouse, and a name the warehouse has already (a location of it stored meanwhile).
      await expect(store(locationInsertAlone(2, decideNewLocation({ warehouse_id: wh.id, name: 'Bay' }), 'u1'))).rejects.toBeInstanceOf(
        NotAsDecided,
      );
      const taken = decideNewLocation({ warehouse_id: wh.id, name: 'STOCK' });
      const between = await snapshot(svc);
      await expect(store(locationInsertAlone(1, taken, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect(await snapshot(svc)).toEqual(between);
      expect(before.locations!.filter((l) => (l as { org_id: number }).org_id === 31)).toEqual([]);

      const reply = ok(await call('catalog.location.create', { action: 'create_location', warehouse_id: wh.id, name: 'Bay 7' }));
      expect(reply).toEqual({ message: 'Location created successfully', location: await locationRow(reply.location.location_id) });
      expect(reply.location).toMatchObject({ warehouse_id: wh.id, warehouse_name: 'Quay', location_name: 'Bay 7', is_default: false });
      expect(
        await svc
          .db('locations')
          .where({ id: Number(reply.location.location_id) })
          .first(),
      ).toMatchObject({ created_by: 'u1' });
    });

    it('creates a warehouse with its main location once the organization has its defaults, answering both as stored', async () => {
      const decided = decideNewWarehouse({ name: 'Early bird', address: '' });
      const before = await snapshot(svc);
      await expect(store(warehouseInsertAlone(32, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      ok(await call('catalog.warehouse.create', { action: 'create_warehouse', name: 'early BIRD' }));
      const between = await snapshot(svc);
      await expect(store(warehouseInsertAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      expect(await snapshot(svc)).toEqual(between);
      expect(before.warehouses!.filter((w) => (w as { org_id: number }).org_id === 32)).toEqual([]);

      const reply = ok(await call('catalog.warehouse.create', { action: 'create_warehouse', name: 'Silo', address: 'Field 3' }));
      const row = await svc
        .db('warehouses')
        .where({ id: Number(reply.warehouse.id) })
        .first();
      expect(reply).toEqual({
        message: 'Warehouse created successfully',
        warehouse: {
          id: String(row.id),
          name: row.name,
          address: row.address,
          is_default: row.is_default,
          created_at: formatDateTime(row.created_at),
        },
        location: await locationRow(reply.location.location_id),
      });
      expect(reply.location).toMatchObject({ warehouse_id: reply.warehouse.id, warehouse_name: 'Silo', location_name: 'Stock' });
      expect(row).toMatchObject({ org_id: 1, address: 'Field 3', created_by: 'u1' });
    });

    it("makes a new organization's defaults with its first warehouse or location, the usual way", async () => {
      const wh = ok(await call('catalog.warehouse.create', { action: 'create_warehouse', name: 'First' }, 33)).warehouse;
      expect(await svc.db('locations').where({ org_id: 33, is_default: true })).toHaveLength(1);
      ok(await call('catalog.location.create', { action: 'create_location', warehouse_id: wh.id, name: 'Second' }, 33));
      const theirs = refusal(await call('catalog.location.create', { action: 'create_location', warehouse_id: wh.id, name: 'Third' }, 34));
      expect(theirs).toMatchObject({ code: 'not_found', message: `Warehouse ${wh.id} not found` });
    });
  });

  describe('product delete', () => {
    let n = 0;
    /** A product with stock, a SKU and one variant with a SKU of its own, in a category. */
    const product = async () => {
      const category = ok(await call('catalog.category.create', { name: `Shelf ${++n}` })).category.id;
      const id = ok(await call('catalog.product.create', { name: `Crate ${n}`, sku: `CR-${n}`, stock: 6, category_id: category })).product
        .id as number;
      ok(
        await call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: id,
          variant_name: 'Big',
          options: { s: 'L' },
          sku: `CR-${n}-L`,
        }),
      );
      return id;
    };
    const decidedOnRead = async (id: number) => {
      const { state, read } = await readProductDeletion(svc.db, 1, id);
      return productDeletionAlone(1, decideProductDeletion(state, id), 'u1', read!);
    };

    it('writes nothing once the product was edited, its stock moved or a variant made since the read', async () => {
      const changes: Array<(id: number) => Promise<unknown>> = [
        async (id) => ok(await call('catalog.product.edit', { product_id: id, price: '9.99' })),
        async (id) =>
          ok(
            await call('catalog.stock.adjust', {
              action: 'stock_adjustment',
              product_id: id,
              qty_locations: { [await defaultLocationId(svc)]: 1 },
            }),
          ),
        async (id) =>
          ok(
            await call('catalog.variant.create', {
              action: 'create_variant',
              parent_product_id: id,
              variant_name: 'Tiny',
              options: { s: 'XS' },
            }),
          ),
      ];
      for (const change of changes) {
        const id = await product();
        const decided = await decidedOnRead(id);
        await change(id);
        const before = await snapshot(svc);
        await expect(store(decided)).rejects.toBeInstanceOf(NotAsDecided);
        expect(await snapshot(svc)).toEqual(before);
      }
    });

    it('waits for a variant being made under the product, and writes nothing once it is', async () => {
      const id = await product();
      const decided = await decidedOnRead(id);
      // A variant's create as the usual way runs it: the product locked, then the variant inserted.
      const trx = await svc.db.transaction();
      await trx('products').where({ id }).forUpdate().first();
      await trx('variants').insert({ org_id: 1, parent_product_id: id, variant_name: 'Late', options: '{}', options_key: 'late' });
      const stored = store(decided);
      expect(await stillWaiting(stored)).toBe(true);
      await trx.commit();
      await expect(stored).rejects.toBeInstanceOf(NotAsDecided);
      expect(await svc.db('variants').where({ parent_product_id: id }).whereNull('deleted_at')).toHaveLength(2);
      expect((await svc.db('products').where({ id }).first()).deleted_at).toBeNull();

      // The delete then takes both variants with it, the usual way.
      ok(await call('catalog.product.delete', { product_id: id, delete: true }));
      expect(await svc.db('variants').where({ parent_product_id: id }).whereNull('deleted_at')).toHaveLength(0);
    });

    it('deletes the product and its variants, frees their SKUs and tells the record as it was at the version stored', async () => {
      const id = await product();
      const before = await svc.db('products').where({ id }).first();
      expect(ok(await call('catalog.product.delete', { product_id: id, delete: true }))).toEqual({
        message: 'Product deleted successfully',
      });
      const stored = await svc.db('products').where({ id }).first();
      expect(stored).toMatchObject({ version: before.version + 1, updated_by: 'u1', updated_at: before.updated_at });
      expect(stored.deleted_at).toBeInstanceOf(Date);
      expect(await svc.db('variants').where({ parent_product_id: id }).whereNull('deleted_at')).toHaveLength(0);
      expect(await svc.db('skus').whereIn('sku_key', [`cr-${n}`, `cr-${n}-l`])).toEqual([]);
      const [event] = await svc
        .db('outbox')
        .where({ type: 'catalog.product.deleted' })
        .whereRaw(`(envelope->'data'->>'id')::int = ?`, [id]);
      expect(event.envelope.data).toEqual(await storedRecord(id));
      expect(event.envelope.data).toMatchObject({ version: before.version + 1, stock: 6, sku: `CR-${n}` });
      expect(refusal(await call('catalog.product.delete', { product_id: id, delete: true }))).toMatchObject({
        code: 'not_found',
        message: `Product ${id} not found`,
      });
    });
  });

  describe('variant create', () => {
    let n = 0;
    const product = async () =>
      ok(await call('catalog.product.create', { name: `Shirt ${++n}`, price: '20', cost: '8' })).product.id as number;
    const variant = (parent: number, payload: Record<string, unknown> = {}) =>
      decideNewVariant(
        request(catalog.createVariant, {
          action: 'create_variant',
          parent_product_id: parent,
          variant_name: 'Red',
          options: { color: 'red' },
          ...payload,
        }),
      );

    it('writes nothing once the product is gone, or its options or SKU were taken, since the decision', async () => {
      const gone = await product();
      const forGone = variant(gone);
      ok(await call('catalog.product.delete', { product_id: gone, delete: true }));
      const taken = await product();
      const sameOptions = variant(taken);
      const sameSku = variant(taken, { options: { color: 'blue' }, sku: `SH-${n}` });
      ok(
        await call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: taken,
          variant_name: 'First',
          options: { COLOR: 'Red' },
        }),
      );
      ok(await call('catalog.product.create', { name: 'Holder', sku: `sh-${n}` }));
      const before = await snapshot(svc);
      for (const decided of [forGone, sameOptions, sameSku]) {
        await expect(store(variantInsertAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      }
      expect(await snapshot(svc)).toEqual(before);
    });

    it('waits for a delete of the product in flight, and writes nothing once it committed', async () => {
      const id = await product();
      const decided = variant(id);
      const trx = await svc.db.transaction();
      await trx('products').where({ id }).update({ deleted_at: trx.fn.now() });
      const stored = store(variantInsertAlone(1, decided, 'u1'));
      expect(await stillWaiting(stored)).toBe(true);
      await trx.commit();
      await expect(stored).rejects.toBeInstanceOf(NotAsDecided);
      expect(await svc.db('variants').where({ parent_product_id: id })).toEqual([]);
    });

    it("answers the variant as stored, at its product's price and cost as they are when it is stored", async () => {
      const id = await product();
      ok(await call('catalog.product.edit', { product_id: id, price: '24.90' }));
      const reply = ok(
        await call('catalog.variant.create', {
          action: 'create_variant',
          parent_product_id: id,
          variant_name: 'Blue XL',
          options: { size: 'XL', color: 'blue' },
          sku: ` SH-XL-${n} `,
          tax_rate: '7',
          tax_category: 'S',
        }),
      );
      const row = (await svc.db('variants').where({ id: reply.variant.id }).first()) as VariantRow;
      expect(reply).toEqual({ message: 'Variant created successfully', variant: toVariantRecord(row) });
      expect(reply.variant).toMatchObject({
        price: 24.9,
        cost: 8,
        sku: `SH-XL-${n}`,
        tax_rate: 7,
        tax_category: 'S',
        options: { size: 'XL', color: 'blue' },
      });
      expect(await svc.db('skus').where({ owner_kind: 'variant', owner_id: row.id })).toEqual([
        { org_id: 1, sku_key: `sh-xl-${n}`, owner_kind: 'variant', owner_id: row.id },
      ]);
      expect(await svc.db('variants').where({ id: row.id }).first()).toMatchObject({ created_by: 'u1', org_id: 1 });
    });
  });

  describe('product edit', () => {
    let n = 0;
    const product = async () =>
      ok(await call('catalog.product.create', { name: `Drill ${++n}`, sku: `DR-${n}`, price: '50', stock: 2 })).product.id as number;
    it('writes nothing once the product was edited or its stock moved since the read', async () => {
      const changes: Array<(id: number) => Promise<unknown>> = [
        async (id) => ok(await call('catalog.product.edit', { product_id: id, cost: '20' })),
        async (id) =>
          ok(
            await call('catalog.stock.adjust', {
              action: 'stock_adjustment',
              product_id: id,
              qty_locations: { [await defaultLocationId(svc)]: 9 },
            }),
          ),
      ];
      for (const change of changes) {
        const id = await product();
        const req = request(catalog.editProduct, { product_id: id, name: 'Hammer drill', min_stock_level: 1 });
        const { state, read } = await readProductEdit(svc.db, 1, id, undefined);
        const decided = decideProductEdit(state, req)!;
        await change(id);
        const before = await snapshot(svc);
        await expect(store(productEditAlone(1, decided, 'u1', read!))).rejects.toBeInstanceOf(NotAsDecided);
        expect(await snapshot(svc)).toEqual(before);
      }
    });

    it('answers the product, and tells it in its event, as stored', async () => {
      const id = await product();
      const category = ok(await call('catalog.category.create', { name: `Power tools ${n}` })).category;
      const before = await svc.db('products').where({ id }).first();
      const reply = ok(
        await call('catalog.product.edit', { product_id: id, name: 'Hammer drill', category_id: category.id, tax_rate: '7', barcode: '' }),
      );
      expect(reply).toEqual({ message: 'Product updated successfully', product: await storedRecord(id) });
      expect(reply.product).toMatchObject({
        name: 'Hammer drill',
        category: category.name,
        category_id: category.id,
        tax_rate: 7,
        stock: 2,
        version: 2,
      });
      const stored = await svc.db('products').where({ id }).first();
      expect(stored).toMatchObject({ version: before.version + 1, updated_by: 'u1', barcode: null });
      expect(stored.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
      const [event] = await svc
        .db('outbox')
        .where({ type: 'catalog.product.updated' })
        .whereRaw(`(envelope->'data'->>'id')::int = ?`, [id]);
      expect(event.envelope.data).toEqual(reply.product);
    });
  });

  describe('product create', () => {
    it('writes nothing once its category is gone or its SKU taken since the decision', async () => {
      const shelf = ok(await call('catalog.category.create', { name: 'Shelf soon gone' })).category;
      const underGone = decideNewProductAlone(request(catalog.createProduct, { name: 'Lost', category_id: shelf.id }))!;
      await svc
        .db('categories')
        .where({ id: Number(shelf.id) })
        .delete();
      const withSku = decideNewProductAlone(request(catalog.createProduct, { name: 'Second', sku: 'ONE-SKU' }))!;
      ok(await call('catalog.product.create', { name: 'First', sku: 'one-sku' }));
      const before = await snapshot(svc);
      for (const decided of [underGone, withSku]) {
        await expect(store(productInsertAlone(1, decided, 'u1'))).rejects.toBeInstanceOf(NotAsDecided);
      }
      expect(await snapshot(svc)).toEqual(before);
    });

    it('answers the product, and tells it in its event, as stored', async () => {
      const category = ok(await call('catalog.category.create', { name: 'Fasteners' })).category;
      const reply = ok(
        await call('catalog.product.create', {
          name: 'Bolt',
          price: '0.35',
          cost: '0.1',
          sku: ' BOLT-8 ',
          category_id: category.id,
          tax_rate: 19,
          tax_category: 'S',
          min_stock_level: '100',
          uom: 'pc',
        }),
      );
      expect(reply).toEqual({ message: 'Product created successfully', product: await storedRecord(reply.product.id) });
      expect(reply.product).toMatchObject({ name: 'Bolt', category: 'Fasteners', sku: 'BOLT-8', stock: 0, version: 1, price: 0.35 });
      expect(await svc.db('skus').where({ owner_kind: 'product', owner_id: reply.product.id })).toEqual([
        { org_id: 1, sku_key: 'bolt-8', owner_kind: 'product', owner_id: reply.product.id },
      ]);
      expect(await svc.db('products').where({ id: reply.product.id }).first()).toMatchObject({ created_by: 'u1', updated_by: 'u1' });
      const [event] = await svc
        .db('outbox')
        .where({ type: 'catalog.product.created' })
        .whereRaw(`(envelope->'data'->>'id')::int = ?`, [reply.product.id]);
      expect(event.envelope.data).toEqual(reply.product);
    });
  });
});
