import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  name: '001_catalog',
  async up(trx, schema) {
    await trx.schema.withSchema(schema).createTable('categories', (t) => {
      t.bigIncrements('id');
      t.integer('org_id').notNullable();
      t.string('name', 200).notNullable();
      t.string('code', 50);
      t.bigInteger('parent_id').references('id').inTable(`${schema}.categories`);
      t.boolean('taxable').notNullable().defaultTo(true);
      t.string('default_account', 100);
      t.string('created_by', 64);
      t.string('updated_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['org_id', 'parent_id']);
    });
    // Codes compare case-insensitively: "BEV" and "bev" name the same category.
    await trx.raw('create unique index categories_org_code on ??.categories (org_id, lower(code)) where code is not null', [schema]);

    await trx.schema.withSchema(schema).createTable('warehouses', (t) => {
      t.bigIncrements('id');
      t.integer('org_id').notNullable();
      t.string('name', 200).notNullable();
      t.text('address');
      t.boolean('is_default').notNullable().defaultTo(false);
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    });
    await trx.raw('create unique index warehouses_org_name on ??.warehouses (org_id, lower(name))', [schema]);
    // At most one default warehouse per organization, even when two first calls race.
    await trx.raw('create unique index warehouses_org_default on ??.warehouses (org_id) where is_default', [schema]);

    await trx.schema.withSchema(schema).createTable('locations', (t) => {
      t.bigIncrements('id');
      t.integer('org_id').notNullable();
      t.bigInteger('warehouse_id').notNullable().references('id').inTable(`${schema}.warehouses`);
      t.string('name', 200).notNullable();
      t.boolean('is_default').notNullable().defaultTo(false);
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
    });
    await trx.raw('create unique index locations_warehouse_name on ??.locations (warehouse_id, lower(name))', [schema]);
    await trx.raw('create unique index locations_org_default on ??.locations (org_id) where is_default', [schema]);

    await trx.schema.withSchema(schema).createTable('products', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.string('name', 200).notNullable();
      t.text('description');
      t.decimal('price', 18, 2).notNullable().defaultTo(0);
      t.decimal('cost', 18, 2).notNullable().defaultTo(0);
      t.bigInteger('category_id').references('id').inTable(`${schema}.categories`);
      t.string('sku', 100);
      t.string('barcode', 100);
      t.text('image');
      t.boolean('taxable').notNullable().defaultTo(true);
      t.decimal('tax_rate', 9, 4).notNullable().defaultTo(0);
      t.string('type', 16).notNullable().defaultTo('inventory');
      t.string('uom', 50);
      t.decimal('min_stock_level', 18, 4);
      t.decimal('max_stock_level', 18, 4);
      t.string('created_by', 64);
      t.string('updated_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('deleted_at', { useTz: true });
    });
    await trx.raw(`alter table ??.products add constraint products_type_check check (type in ('inventory','service','consumable'))`, [
      schema,
    ]);
    await trx.raw('create index products_org_live on ??.products (org_id, created_at desc, id desc) where deleted_at is null', [schema]);

    await trx.schema.withSchema(schema).createTable('variants', (t) => {
      t.increments('id');
      t.integer('org_id').notNullable();
      t.integer('parent_product_id').notNullable().references('id').inTable(`${schema}.products`);
      t.string('variant_name', 200).notNullable();
      t.jsonb('options').notNullable().defaultTo('{}');
      /** Options written in a canonical order, so two variants with the same combination collide. */
      t.text('options_key').notNullable();
      t.decimal('price', 18, 2).notNullable().defaultTo(0);
      t.decimal('cost', 18, 2).notNullable().defaultTo(0);
      t.string('sku', 100);
      t.string('barcode', 100);
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.timestamp('deleted_at', { useTz: true });
      t.index(['org_id', 'parent_product_id']);
    });
    await trx.raw('create unique index variants_parent_options on ??.variants (parent_product_id, options_key) where deleted_at is null', [
      schema,
    ]);

    // SKUs of live products and variants share one namespace per organization; the primary key
    // makes the rule hold under concurrency, and freeing a SKU is deleting its row.
    await trx.schema.withSchema(schema).createTable('skus', (t) => {
      t.integer('org_id').notNullable();
      t.string('sku_key', 100).notNullable();
      t.string('owner_kind', 10).notNullable();
      t.integer('owner_id').notNullable();
      t.primary(['org_id', 'sku_key']);
      t.unique(['owner_kind', 'owner_id']);
    });

    // Current quantity per product and location: always the sum of the move lines' changes.
    await trx.schema.withSchema(schema).createTable('stock_quantities', (t) => {
      t.integer('org_id').notNullable();
      t.integer('product_id').notNullable().references('id').inTable(`${schema}.products`);
      t.bigInteger('location_id').notNullable().references('id').inTable(`${schema}.locations`);
      t.decimal('quantity', 18, 4).notNullable().defaultTo(0);
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.primary(['product_id', 'location_id']);
    });
    await trx.raw('alter table ??.stock_quantities add constraint stock_quantities_non_negative check (quantity >= 0)', [schema]);

    // Append-only ledger: one move per call, one line per location it touched.
    await trx.schema.withSchema(schema).createTable('stock_moves', (t) => {
      t.bigIncrements('id');
      t.integer('org_id').notNullable();
      t.integer('product_id').notNullable().references('id').inTable(`${schema}.products`);
      t.string('source', 20).notNullable();
      t.string('adjustment_type', 50).notNullable();
      t.string('reference', 200);
      t.text('notes');
      t.string('created_by', 64);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      t.index(['org_id', 'product_id', 'id']);
    });
    await trx.schema.withSchema(schema).createTable('stock_move_lines', (t) => {
      t.bigIncrements('id');
      t.bigInteger('move_id').notNullable().references('id').inTable(`${schema}.stock_moves`);
      t.integer('org_id').notNullable();
      t.integer('product_id').notNullable();
      t.bigInteger('location_id').notNullable().references('id').inTable(`${schema}.locations`);
      t.decimal('previous_stock', 18, 4).notNullable();
      t.decimal('new_stock', 18, 4).notNullable();
      t.decimal('change', 18, 4).notNullable();
      t.index(['move_id']);
    });
  },
};
