--
-- PostgreSQL database dump
--

--
-- Name: catalog; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA catalog;

--
-- Name: bump_stock_version(); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.bump_stock_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
       begin
         update "catalog".products p set stock_version = p.stock_version + 1
          where p.id in (select distinct m.product_id from moved m);
         return null;
       end $$;

--
-- Name: bump_variants_version(); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.bump_variants_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
       begin
         update "catalog".products p set variants_version = p.variants_version + 1
          where p.id in (select distinct v.parent_product_id from made v);
         return null;
       end $$;

--
-- Name: refuse_ledger_rewrite(); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.refuse_ledger_rewrite() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
       begin
         raise exception 'stock moves are append-only: % on % refused', tg_op, tg_table_name using errcode = 'restrict_violation';
       end $$;

--
-- Name: require_as_decided(boolean); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.require_as_decided(as_decided boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = 'BO412';
           end if;
           return as_decided;
         end $$;

--
-- Name: require_as_planned(boolean); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.require_as_planned(as_planned boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not as_planned then
             raise exception 'what a consumer decided on changed before its store' using errcode = '40001';
           end if;
           return as_planned;
         end $$;

--
-- Name: require_key_free(boolean); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.require_key_free(free boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = 'BO423';
           end if;
           return free;
         end $$;

--
-- Name: require_recorded(bigint); Type: FUNCTION; Schema: catalog; Owner: -
--

CREATE FUNCTION catalog.require_recorded(recorded bigint) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = 'BO409';
           end if;
           return recorded;
         end $$;

--
-- Name: categories; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.categories (
    id bigint NOT NULL,
    org_id integer NOT NULL,
    name character varying(200) NOT NULL,
    code character varying(50),
    parent_id bigint,
    taxable boolean DEFAULT true NOT NULL,
    default_account character varying(100),
    created_by character varying(64),
    updated_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: categories_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.categories_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: categories_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.categories_id_seq OWNED BY catalog.categories.id;

--
-- Name: document_sequences; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.document_sequences (
    org_id integer NOT NULL,
    series character varying(20) NOT NULL,
    last_value bigint NOT NULL
);

--
-- Name: event_dead_letters; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.event_dead_letters (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    dead_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: event_deliveries; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.event_deliveries (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempt integer NOT NULL,
    due_at timestamp with time zone NOT NULL,
    last_error text,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: idempotency; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.idempotency (
    org_id integer NOT NULL,
    key character varying(255) NOT NULL,
    operation character varying(100) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status integer NOT NULL,
    reply text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: inbox; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.inbox (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: locations; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.locations (
    id bigint NOT NULL,
    org_id integer NOT NULL,
    warehouse_id bigint NOT NULL,
    name character varying(200) NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: locations_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.locations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: locations_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.locations_id_seq OWNED BY catalog.locations.id;

--
-- Name: outbox; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.outbox (
    id bigint NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    org_id integer NOT NULL,
    envelope jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    published_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    last_error text,
    traceparent text,
    tracestate text,
    claimed_until timestamp with time zone
);

--
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.outbox_id_seq OWNED BY catalog.outbox.id;

--
-- Name: products; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.products (
    id integer NOT NULL,
    org_id integer NOT NULL,
    name character varying(200) NOT NULL,
    description text,
    price numeric(18,2) DEFAULT '0'::numeric NOT NULL,
    cost numeric(18,2) DEFAULT '0'::numeric NOT NULL,
    category_id bigint,
    sku character varying(100),
    barcode character varying(100),
    image text,
    taxable boolean DEFAULT true NOT NULL,
    tax_rate numeric(9,4) DEFAULT '0'::numeric NOT NULL,
    type character varying(16) DEFAULT 'inventory'::character varying NOT NULL,
    uom character varying(50),
    min_stock_level numeric(18,4),
    max_stock_level numeric(18,4),
    created_by character varying(64),
    updated_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    deleted_at timestamp with time zone,
    tax_category character varying(2),
    version integer DEFAULT 1 NOT NULL,
    stock_version bigint DEFAULT 0 NOT NULL,
    variants_version bigint DEFAULT 0 NOT NULL,
    CONSTRAINT products_type_check CHECK (((type)::text = ANY ((ARRAY['inventory'::character varying, 'service'::character varying, 'consumable'::character varying])::text[])))
);

--
-- Name: products_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.products_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: products_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.products_id_seq OWNED BY catalog.products.id;

--
-- Name: schema_migrations; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: skus; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.skus (
    org_id integer NOT NULL,
    sku_key character varying(100) NOT NULL,
    owner_kind character varying(10) NOT NULL,
    owner_id integer NOT NULL
);

--
-- Name: stock_move_duplicates; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.stock_move_duplicates (
    move_id bigint NOT NULL,
    first_move_id bigint NOT NULL,
    noted_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: stock_move_lines; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.stock_move_lines (
    id bigint NOT NULL,
    move_id bigint NOT NULL,
    org_id integer NOT NULL,
    product_id integer NOT NULL,
    location_id bigint NOT NULL,
    previous_stock numeric(18,4) NOT NULL,
    new_stock numeric(18,4) NOT NULL,
    change numeric(18,4) NOT NULL,
    CONSTRAINT stock_move_lines_consistent CHECK ((change = (new_stock - previous_stock)))
);

--
-- Name: stock_move_lines_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.stock_move_lines_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: stock_move_lines_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.stock_move_lines_id_seq OWNED BY catalog.stock_move_lines.id;

--
-- Name: stock_moves; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.stock_moves (
    id bigint NOT NULL,
    org_id integer NOT NULL,
    product_id integer NOT NULL,
    source character varying(20) NOT NULL,
    adjustment_type character varying(50) NOT NULL,
    reference character varying(200),
    notes text,
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    document_type character varying(16),
    document_id integer,
    document_number character varying(50)
);

--
-- Name: stock_moves_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.stock_moves_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: stock_moves_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.stock_moves_id_seq OWNED BY catalog.stock_moves.id;

--
-- Name: stock_quantities; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.stock_quantities (
    org_id integer NOT NULL,
    product_id integer NOT NULL,
    location_id bigint NOT NULL,
    quantity numeric(18,4) DEFAULT '0'::numeric NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: variants; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.variants (
    id integer NOT NULL,
    org_id integer NOT NULL,
    parent_product_id integer NOT NULL,
    variant_name character varying(200) NOT NULL,
    options jsonb DEFAULT '{}'::jsonb NOT NULL,
    options_key text NOT NULL,
    price numeric(18,2) DEFAULT '0'::numeric NOT NULL,
    cost numeric(18,2) DEFAULT '0'::numeric NOT NULL,
    sku character varying(100),
    barcode character varying(100),
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    deleted_at timestamp with time zone,
    tax_rate numeric(9,4),
    tax_category character varying(2)
);

--
-- Name: variants_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.variants_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: variants_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.variants_id_seq OWNED BY catalog.variants.id;

--
-- Name: warehouses; Type: TABLE; Schema: catalog; Owner: -
--

CREATE TABLE catalog.warehouses (
    id bigint NOT NULL,
    org_id integer NOT NULL,
    name character varying(200) NOT NULL,
    address text,
    is_default boolean DEFAULT false NOT NULL,
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: warehouses_id_seq; Type: SEQUENCE; Schema: catalog; Owner: -
--

CREATE SEQUENCE catalog.warehouses_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: warehouses_id_seq; Type: SEQUENCE OWNED BY; Schema: catalog; Owner: -
--

ALTER SEQUENCE catalog.warehouses_id_seq OWNED BY catalog.warehouses.id;

--
-- Name: categories id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.categories ALTER COLUMN id SET DEFAULT nextval('catalog.categories_id_seq'::regclass);

--
-- Name: locations id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.locations ALTER COLUMN id SET DEFAULT nextval('catalog.locations_id_seq'::regclass);

--
-- Name: outbox id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.outbox ALTER COLUMN id SET DEFAULT nextval('catalog.outbox_id_seq'::regclass);

--
-- Name: products id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.products ALTER COLUMN id SET DEFAULT nextval('catalog.products_id_seq'::regclass);

--
-- Name: stock_move_lines id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_lines ALTER COLUMN id SET DEFAULT nextval('catalog.stock_move_lines_id_seq'::regclass);

--
-- Name: stock_moves id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_moves ALTER COLUMN id SET DEFAULT nextval('catalog.stock_moves_id_seq'::regclass);

--
-- Name: variants id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.variants ALTER COLUMN id SET DEFAULT nextval('catalog.variants_id_seq'::regclass);

--
-- Name: warehouses id; Type: DEFAULT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.warehouses ALTER COLUMN id SET DEFAULT nextval('catalog.warehouses_id_seq'::regclass);

--
-- Name: categories categories_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.categories
    ADD CONSTRAINT categories_pkey PRIMARY KEY (id);

--
-- Name: document_sequences document_sequences_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.document_sequences
    ADD CONSTRAINT document_sequences_pkey PRIMARY KEY (org_id, series);

--
-- Name: event_dead_letters event_dead_letters_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.event_dead_letters
    ADD CONSTRAINT event_dead_letters_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: event_deliveries event_deliveries_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.event_deliveries
    ADD CONSTRAINT event_deliveries_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (org_id, key);

--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: locations locations_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.locations
    ADD CONSTRAINT locations_pkey PRIMARY KEY (id);

--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: products products_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);

--
-- Name: skus skus_owner_kind_owner_id_unique; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.skus
    ADD CONSTRAINT skus_owner_kind_owner_id_unique UNIQUE (owner_kind, owner_id);

--
-- Name: skus skus_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.skus
    ADD CONSTRAINT skus_pkey PRIMARY KEY (org_id, sku_key);

--
-- Name: stock_move_duplicates stock_move_duplicates_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_duplicates
    ADD CONSTRAINT stock_move_duplicates_pkey PRIMARY KEY (move_id);

--
-- Name: stock_move_lines stock_move_lines_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_lines
    ADD CONSTRAINT stock_move_lines_pkey PRIMARY KEY (id);

--
-- Name: stock_moves stock_moves_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_moves
    ADD CONSTRAINT stock_moves_pkey PRIMARY KEY (id);

--
-- Name: stock_quantities stock_quantities_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_quantities
    ADD CONSTRAINT stock_quantities_pkey PRIMARY KEY (product_id, location_id);

--
-- Name: variants variants_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.variants
    ADD CONSTRAINT variants_pkey PRIMARY KEY (id);

--
-- Name: warehouses warehouses_pkey; Type: CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.warehouses
    ADD CONSTRAINT warehouses_pkey PRIMARY KEY (id);

--
-- Name: categories_org_code; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX categories_org_code ON catalog.categories USING btree (org_id, lower((code)::text)) WHERE (code IS NOT NULL);

--
-- Name: categories_org_id_parent_id_index; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX categories_org_id_parent_id_index ON catalog.categories USING btree (org_id, parent_id);

--
-- Name: idempotency_created; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX idempotency_created ON catalog.idempotency USING btree (created_at);

--
-- Name: inbox_processed; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX inbox_processed ON catalog.inbox USING btree (processed_at);

--
-- Name: locations_org_default; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX locations_org_default ON catalog.locations USING btree (org_id) WHERE is_default;

--
-- Name: locations_warehouse_name; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX locations_warehouse_name ON catalog.locations USING btree (warehouse_id, lower((name)::text));

--
-- Name: outbox_published; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX outbox_published ON catalog.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);

--
-- Name: outbox_unpublished; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX outbox_unpublished ON catalog.outbox USING btree (id) WHERE (published_at IS NULL);

--
-- Name: products_org_live; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX products_org_live ON catalog.products USING btree (org_id, created_at DESC, id DESC) WHERE (deleted_at IS NULL);

--
-- Name: stock_move_lines_move_id_index; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX stock_move_lines_move_id_index ON catalog.stock_move_lines USING btree (move_id);

--
-- Name: stock_moves_document_product; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX stock_moves_document_product ON catalog.stock_moves USING btree (org_id, document_id, product_id) WHERE (document_id IS NOT NULL);

--
-- Name: stock_moves_org_id_product_id_id_index; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX stock_moves_org_id_product_id_id_index ON catalog.stock_moves USING btree (org_id, product_id, id);

--
-- Name: variants_org_id_parent_product_id_index; Type: INDEX; Schema: catalog; Owner: -
--

CREATE INDEX variants_org_id_parent_product_id_index ON catalog.variants USING btree (org_id, parent_product_id);

--
-- Name: variants_parent_options; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX variants_parent_options ON catalog.variants USING btree (parent_product_id, options_key) WHERE (deleted_at IS NULL);

--
-- Name: warehouses_org_default; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX warehouses_org_default ON catalog.warehouses USING btree (org_id) WHERE is_default;

--
-- Name: warehouses_org_name; Type: INDEX; Schema: catalog; Owner: -
--

CREATE UNIQUE INDEX warehouses_org_name ON catalog.warehouses USING btree (org_id, lower((name)::text));

--
-- Name: stock_move_lines stock_move_lines_append_only; Type: TRIGGER; Schema: catalog; Owner: -
--

CREATE TRIGGER stock_move_lines_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON catalog.stock_move_lines FOR EACH STATEMENT EXECUTE FUNCTION catalog.refuse_ledger_rewrite();

--
-- Name: stock_moves stock_moves_append_only; Type: TRIGGER; Schema: catalog; Owner: -
--

CREATE TRIGGER stock_moves_append_only BEFORE DELETE OR UPDATE OR TRUNCATE ON catalog.stock_moves FOR EACH STATEMENT EXECUTE FUNCTION catalog.refuse_ledger_rewrite();

--
-- Name: stock_moves stock_moves_bump_stock_version; Type: TRIGGER; Schema: catalog; Owner: -
--

CREATE TRIGGER stock_moves_bump_stock_version AFTER INSERT ON catalog.stock_moves REFERENCING NEW TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION catalog.bump_stock_version();

--
-- Name: variants variants_bump_variants_version; Type: TRIGGER; Schema: catalog; Owner: -
--

CREATE TRIGGER variants_bump_variants_version AFTER INSERT ON catalog.variants REFERENCING NEW TABLE AS made FOR EACH STATEMENT EXECUTE FUNCTION catalog.bump_variants_version();

--
-- Name: categories categories_parent_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.categories
    ADD CONSTRAINT categories_parent_id_foreign FOREIGN KEY (parent_id) REFERENCES catalog.categories(id);

--
-- Name: locations locations_warehouse_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.locations
    ADD CONSTRAINT locations_warehouse_id_foreign FOREIGN KEY (warehouse_id) REFERENCES catalog.warehouses(id);

--
-- Name: products products_category_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.products
    ADD CONSTRAINT products_category_id_foreign FOREIGN KEY (category_id) REFERENCES catalog.categories(id);

--
-- Name: stock_move_duplicates stock_move_duplicates_first_move_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_duplicates
    ADD CONSTRAINT stock_move_duplicates_first_move_id_foreign FOREIGN KEY (first_move_id) REFERENCES catalog.stock_moves(id);

--
-- Name: stock_move_duplicates stock_move_duplicates_move_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_duplicates
    ADD CONSTRAINT stock_move_duplicates_move_id_foreign FOREIGN KEY (move_id) REFERENCES catalog.stock_moves(id);

--
-- Name: stock_move_lines stock_move_lines_location_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_lines
    ADD CONSTRAINT stock_move_lines_location_id_foreign FOREIGN KEY (location_id) REFERENCES catalog.locations(id);

--
-- Name: stock_move_lines stock_move_lines_move_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_move_lines
    ADD CONSTRAINT stock_move_lines_move_id_foreign FOREIGN KEY (move_id) REFERENCES catalog.stock_moves(id);

--
-- Name: stock_moves stock_moves_product_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_moves
    ADD CONSTRAINT stock_moves_product_id_foreign FOREIGN KEY (product_id) REFERENCES catalog.products(id);

--
-- Name: stock_quantities stock_quantities_location_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_quantities
    ADD CONSTRAINT stock_quantities_location_id_foreign FOREIGN KEY (location_id) REFERENCES catalog.locations(id);

--
-- Name: stock_quantities stock_quantities_product_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.stock_quantities
    ADD CONSTRAINT stock_quantities_product_id_foreign FOREIGN KEY (product_id) REFERENCES catalog.products(id);

--
-- Name: variants variants_parent_product_id_foreign; Type: FK CONSTRAINT; Schema: catalog; Owner: -
--

ALTER TABLE ONLY catalog.variants
    ADD CONSTRAINT variants_parent_product_id_foreign FOREIGN KEY (parent_product_id) REFERENCES catalog.products(id);

--
-- PostgreSQL database dump complete
--
