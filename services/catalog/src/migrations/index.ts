import { withLockTimeout, type Migration } from '@bo/runtime';

export const catalogMigrations: Migration[] = [
  {
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
      await trx.raw(
        'create unique index variants_parent_options on ??.variants (parent_product_id, options_key) where deleted_at is null',
        [schema],
      );

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
  },
  {
    // The ledger is the stock's history: the database itself refuses to rewrite it, so no code path
    // (or hand-run fix) can make a quantity disagree with the moves that explain it.
    name: '002_stock_ledger_append_only',
    async up(trx, schema) {
      await trx.raw(
        `create function ??.refuse_ledger_rewrite() returns trigger language plpgsql as $$
         begin
           raise exception 'stock moves are append-only: % on % refused', tg_op, tg_table_name using errcode = 'restrict_violation';
         end $$`,
        [schema],
      );
      for (const table of ['stock_moves', 'stock_move_lines']) {
        await trx.raw(
          `create trigger ${table}_append_only before update or delete or truncate on ??.?? for each statement execute function ??.refuse_ledger_rewrite()`,
          [schema, table, schema],
        );
      }
      await trx.raw(
        'alter table ??.stock_move_lines add constraint stock_move_lines_consistent check (change = new_stock - previous_stock and new_stock >= 0 and previous_stock >= 0)',
        [schema],
      );
    },
  },
  {
    // Stock follows validated documents (docs/design.md): a customer invoice may sell stock the ledger
    // does not hold yet (the effect is asynchronous, and the goods did leave), so quantities and
    // move lines may now be negative. Adjustments still refuse negative targets in their schema.
    name: '003_document_moves',
    async up(trx, schema) {
      await trx.raw('alter table ??.stock_quantities drop constraint stock_quantities_non_negative', [schema]);
      await trx.raw('alter table ??.stock_move_lines drop constraint stock_move_lines_consistent', [schema]);
      await trx.raw(
        'alter table ??.stock_move_lines add constraint stock_move_lines_consistent check (change = new_stock - previous_stock)',
        [schema],
      );
      await trx.schema.withSchema(schema).alterTable('stock_moves', (t) => {
        // The validated document a `document` move follows; null for every other source.
        t.string('document_type', 16);
        t.integer('document_id');
        t.string('document_number', 50);
      });
    },
  },
  {
    // A document moves each of its products' stock once, whatever happens to the inbox: processed
    // event ids are forgotten after INBOX_RETENTION_HOURS, and an event delivered again after that
    // (moved back from a dead-letter queue, say) must find the move it made. Stock is kept per product,
    // so a document's lines of one product make one move: the natural key is (org, document, product).
    // Moves a document made twice before this key existed stay (the ledger is append-only) and are
    // listed in stock_move_duplicates beside the first, for a person to correct with an adjustment;
    // the key covers every other move.
    name: '004_stock_moves_natural_key',
    async up(trx, schema) {
      await trx.schema.withSchema(schema).createTable('stock_move_duplicates', (t) => {
        t.bigInteger('move_id').primary().references('id').inTable(`${schema}.stock_moves`);
        t.bigInteger('first_move_id').notNullable().references('id').inTable(`${schema}.stock_moves`);
        t.timestamp('noted_at', { useTz: true }).notNullable().defaultTo(trx.fn.now());
      });
      const found: unknown = await trx.raw(
        `insert into ??.stock_move_duplicates (move_id, first_move_id)
         select id, first_id from (
           select id, first_value(id) over (partition by org_id, document_id, product_id order by id) as first_id
           from ??.stock_moves where document_id is not null) m
         where id <> first_id
         returning move_id`,
        [schema, schema],
      );
      const duplicates = (found as { rows: Array<{ move_id: string }> }).rows.map((r) => Number(r.move_id)).sort((a, b) => a - b);
      const except = duplicates.length ? ` and id not in (${duplicates.join(', ')})` : '';
      await withLockTimeout(trx, () =>
        trx.raw(
          `create unique index stock_moves_document_product on ??.stock_moves (org_id, document_id, product_id) where document_id is not null${except}`,
          [schema],
        ),
      );
    },
  },
  {
    // Catalog tax defaults (docs/catalog.md): a product's VAT category beside its rate, and a
    // variant's own rate and category; null takes the product's (its category: S or Z by its rate).
    name: '005_tax_defaults',
    async up(trx, schema) {
      await trx.raw('alter table ??.products add column tax_category varchar(2)', [schema]);
      await trx.raw('alter table ??.variants add column tax_rate numeric(9, 4), add column tax_category varchar(2)', [schema]);
    },
  },
  {
    // A product's version counts its record's changes (1 when made, one more per edit and at its
    // delete), so a receiver of its events, which are not delivered in order, keeps the newest.
    name: '006_product_version',
    async up(trx, schema) {
      await trx.raw('alter table ??.products add column version integer not null default 1', [schema]);
    },
  },
];
