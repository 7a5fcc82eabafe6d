--
-- PostgreSQL database dump
--

--
-- Name: partners; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA partners;

--
-- Name: partners_record_json(); Type: FUNCTION; Schema: partners; Owner: -
--

CREATE FUNCTION partners.partners_record_json() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
         begin
           new."record_json" := '{"id":' || coalesce(to_json("new"."id")::text, 'null') || ',"orgid":' || coalesce(to_json("new"."org_id")::text, 'null') || ',"partnername":' || coalesce(to_json("new"."partnername")::text, 'null') || ',"display_name":' || coalesce(to_json("new"."display_name")::text, 'null') || ',"partner_type":' || coalesce(to_json("new"."partner_type")::text, 'null') || ',"email":' || coalesce(to_json("new"."email")::text, 'null') || ',"phone":' || coalesce(to_json("new"."phone")::text, 'null') || ',"address":' || coalesce(to_json("new"."address")::text, 'null') || ',"address_line1":' || coalesce(to_json("new"."address_line1")::text, 'null') || ',"address_line2":' || coalesce(to_json("new"."address_line2")::text, 'null') || ',"city":' || coalesce(to_json("new"."city")::text, 'null') || ',"postal_code":' || coalesce(to_json("new"."postal_code")::text, 'null') || ',"region":' || coalesce(to_json("new"."region")::text, 'null') || ',"country":' || coalesce(to_json("new"."country")::text, 'null') || ',"tax_number":' || coalesce(to_json("new"."tax_number")::text, 'null') || ',"credit_limit":' || coalesce(trim_scale("new"."credit_limit")::text, 'null') || ',"balance":' || coalesce(trim_scale("new"."balance")::text, 'null') || ',"committed":' || coalesce(trim_scale("new"."committed")::text, 'null') || ',"currency":' || coalesce(to_json("new"."currency")::text, 'null') || ',"payment_terms":' || coalesce(to_json("new"."payment_terms")::text, 'null') || ',"contact_person":' || coalesce(to_json("new"."contact_person")::text, 'null') || ',"notes":' || coalesce(to_json("new"."notes")::text, 'null') || ',"peppol_id":' || coalesce(to_json("new"."peppol_id")::text, 'null') || ',"bank_accounts":' || coalesce(to_json("new"."bank_accounts")::text, 'null') || ',"dunning_blocked":' || coalesce(to_json("new"."dunning_blocked")::text, 'null') || ',"version":' || coalesce(to_json("new"."version")::text, 'null') || ',"created_at":' || coalesce(to_json(date_trunc('second', "new"."created_at" at time zone 'UTC'))::text, 'null') || ',"updated_at":' || coalesce(to_json(date_trunc('second', "new"."updated_at" at time zone 'UTC'))::text, 'null') || '}';
           return new;
         end $$;

--
-- Name: require_as_decided(boolean); Type: FUNCTION; Schema: partners; Owner: -
--

CREATE FUNCTION partners.require_as_decided(as_decided boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = 'BO412';
           end if;
           return as_decided;
         end $$;

--
-- Name: require_as_planned(boolean); Type: FUNCTION; Schema: partners; Owner: -
--

CREATE FUNCTION partners.require_as_planned(as_planned boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not as_planned then
             raise exception 'what a consumer decided on changed before its store' using errcode = '40001';
           end if;
           return as_planned;
         end $$;

--
-- Name: require_key_free(boolean); Type: FUNCTION; Schema: partners; Owner: -
--

CREATE FUNCTION partners.require_key_free(free boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = 'BO423';
           end if;
           return free;
         end $$;

--
-- Name: require_recorded(bigint); Type: FUNCTION; Schema: partners; Owner: -
--

CREATE FUNCTION partners.require_recorded(recorded bigint) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = 'BO409';
           end if;
           return recorded;
         end $$;

--
-- Name: commitments; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.commitments (
    org_id integer NOT NULL,
    invoice_id integer NOT NULL,
    partner_id integer,
    quotation_id integer,
    quotation_number character varying(64),
    amount numeric DEFAULT 0.00 NOT NULL,
    status character varying(10) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    released_at timestamp with time zone,
    currency character varying(3)
);

--
-- Name: document_sequences; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.document_sequences (
    org_id integer NOT NULL,
    series character varying(20) NOT NULL,
    last_value bigint NOT NULL
);

--
-- Name: event_dead_letters; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.event_dead_letters (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    dead_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: event_deliveries; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.event_deliveries (
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
-- Name: idempotency; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.idempotency (
    org_id integer NOT NULL,
    key character varying(255) NOT NULL,
    operation character varying(100) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status integer NOT NULL,
    reply text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: inbox; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.inbox (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: organization_profiles; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.organization_profiles (
    org_id integer NOT NULL,
    version integer NOT NULL,
    legal_name character varying(200),
    trading_name character varying(200),
    address_line1 character varying(200),
    address_line2 character varying(200),
    city character varying(100),
    postal_code character varying(20),
    country character varying(2),
    vat_id character varying(50),
    company_id character varying(50),
    email character varying(254),
    phone character varying(50),
    iban character varying(34),
    bic character varying(11),
    default_currency character varying(3),
    time_zone character varying(64),
    logo_png bytea,
    logo_sha256 character varying(64),
    updated_by character varying(64),
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    rounding character varying(8),
    cash_rounding numeric(14,4),
    lock_date date,
    peppol_id character varying(64),
    books_version bigint DEFAULT 0 NOT NULL,
    CONSTRAINT organization_profiles_cash_rounding_check CHECK ((cash_rounding > (0)::numeric)),
    CONSTRAINT organization_profiles_rounding_check CHECK (((rounding)::text = ANY ((ARRAY['line'::character varying, 'document'::character varying])::text[])))
);

--
-- Name: outbox; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: partners; Owner: -
--

CREATE SEQUENCE partners.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: partners; Owner: -
--

ALTER SEQUENCE partners.outbox_id_seq OWNED BY partners.outbox.id;

--
-- Name: partner_balances; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.partner_balances (
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    currency character varying(3) NOT NULL,
    balance numeric DEFAULT '0'::numeric NOT NULL,
    receivable numeric DEFAULT '0'::numeric NOT NULL,
    committed numeric DEFAULT '0'::numeric NOT NULL,
    documents_total numeric DEFAULT '0'::numeric NOT NULL,
    documents_accounting numeric DEFAULT '0'::numeric NOT NULL,
    booked_balance numeric DEFAULT 0 NOT NULL,
    booked_receivable numeric DEFAULT 0 NOT NULL,
    booked_face_balance numeric DEFAULT 0 NOT NULL,
    booked_face_receivable numeric DEFAULT 0 NOT NULL
);

--
-- Name: partner_transactions; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.partner_transactions (
    id bigint NOT NULL,
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    type character varying(20) NOT NULL,
    source character varying(20) NOT NULL,
    source_id integer NOT NULL,
    invoice_id integer NOT NULL,
    document_number character varying(64) NOT NULL,
    date date NOT NULL,
    amount numeric NOT NULL,
    balance_effect numeric NOT NULL,
    event_id uuid NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    receivable_effect numeric DEFAULT 0.00 NOT NULL,
    currency character varying(3),
    accounting_amount numeric,
    accounting_effect numeric,
    accounting_receivable_effect numeric
);

--
-- Name: partner_transactions_id_seq; Type: SEQUENCE; Schema: partners; Owner: -
--

CREATE SEQUENCE partners.partner_transactions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: partner_transactions_id_seq; Type: SEQUENCE OWNED BY; Schema: partners; Owner: -
--

ALTER SEQUENCE partners.partner_transactions_id_seq OWNED BY partners.partner_transactions.id;

--
-- Name: partners; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.partners (
    id integer NOT NULL,
    org_id integer NOT NULL,
    partnername character varying(200) NOT NULL,
    display_name character varying(200) NOT NULL,
    partner_type character varying(16) NOT NULL,
    email character varying(254),
    phone character varying(50),
    address text,
    tax_number character varying(50),
    credit_limit numeric DEFAULT 0.00 NOT NULL,
    balance numeric DEFAULT 0.00 NOT NULL,
    committed numeric DEFAULT 0.00 NOT NULL,
    currency character varying(3),
    payment_terms text,
    contact_person character varying(200),
    notes text,
    created_by character varying(64),
    updated_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    deleted_at timestamp with time zone,
    address_line1 character varying(200),
    address_line2 character varying(200),
    city character varying(100),
    postal_code character varying(20),
    region character varying(100),
    country character varying(2),
    version integer DEFAULT 1 NOT NULL,
    receivable numeric DEFAULT 0.00 NOT NULL,
    peppol_id character varying(64),
    bank_accounts json DEFAULT '[]'::json NOT NULL,
    dunning_blocked boolean DEFAULT false NOT NULL,
    record_json text NOT NULL,
    CONSTRAINT partners_type_check CHECK (((partner_type)::text = ANY ((ARRAY['customer'::character varying, 'vendor'::character varying, 'both'::character varying])::text[])))
);

--
-- Name: partners_id_seq; Type: SEQUENCE; Schema: partners; Owner: -
--

CREATE SEQUENCE partners.partners_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: partners_id_seq; Type: SEQUENCE OWNED BY; Schema: partners; Owner: -
--

ALTER SEQUENCE partners.partners_id_seq OWNED BY partners.partners.id;

--
-- Name: schema_migrations; Type: TABLE; Schema: partners; Owner: -
--

CREATE TABLE partners.schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: outbox id; Type: DEFAULT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.outbox ALTER COLUMN id SET DEFAULT nextval('partners.outbox_id_seq'::regclass);

--
-- Name: partner_transactions id; Type: DEFAULT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partner_transactions ALTER COLUMN id SET DEFAULT nextval('partners.partner_transactions_id_seq'::regclass);

--
-- Name: partners id; Type: DEFAULT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partners ALTER COLUMN id SET DEFAULT nextval('partners.partners_id_seq'::regclass);

--
-- Name: commitments commitments_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.commitments
    ADD CONSTRAINT commitments_pkey PRIMARY KEY (org_id, invoice_id);

--
-- Name: document_sequences document_sequences_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.document_sequences
    ADD CONSTRAINT document_sequences_pkey PRIMARY KEY (org_id, series);

--
-- Name: event_dead_letters event_dead_letters_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.event_dead_letters
    ADD CONSTRAINT event_dead_letters_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: event_deliveries event_deliveries_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.event_deliveries
    ADD CONSTRAINT event_deliveries_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (org_id, key);

--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: organization_profiles organization_profiles_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.organization_profiles
    ADD CONSTRAINT organization_profiles_pkey PRIMARY KEY (org_id);

--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: partner_balances partner_balances_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partner_balances
    ADD CONSTRAINT partner_balances_pkey PRIMARY KEY (org_id, partner_id, currency);

--
-- Name: partner_transactions partner_transactions_org_id_source_source_id_unique; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partner_transactions
    ADD CONSTRAINT partner_transactions_org_id_source_source_id_unique UNIQUE (org_id, source, source_id);

--
-- Name: partner_transactions partner_transactions_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partner_transactions
    ADD CONSTRAINT partner_transactions_pkey PRIMARY KEY (id);

--
-- Name: partners partners_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partners
    ADD CONSTRAINT partners_pkey PRIMARY KEY (id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);

--
-- Name: idempotency_created; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX idempotency_created ON partners.idempotency USING btree (created_at);

--
-- Name: inbox_processed; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX inbox_processed ON partners.inbox USING btree (processed_at);

--
-- Name: outbox_published; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX outbox_published ON partners.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);

--
-- Name: outbox_unpublished; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX outbox_unpublished ON partners.outbox USING btree (id) WHERE (published_at IS NULL);

--
-- Name: partner_transactions_org_id_partner_id_date_index; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX partner_transactions_org_id_partner_id_date_index ON partners.partner_transactions USING btree (org_id, partner_id, date);

--
-- Name: partners_bank_accounts; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX partners_bank_accounts ON partners.partners USING gin (((bank_accounts)::jsonb) jsonb_path_ops) WHERE (deleted_at IS NULL);

--
-- Name: partners_org_live; Type: INDEX; Schema: partners; Owner: -
--

CREATE INDEX partners_org_live ON partners.partners USING btree (org_id, id DESC) WHERE (deleted_at IS NULL);

--
-- Name: partners record_json; Type: TRIGGER; Schema: partners; Owner: -
--

CREATE TRIGGER record_json BEFORE INSERT OR UPDATE ON partners.partners FOR EACH ROW EXECUTE FUNCTION partners.partners_record_json();

--
-- Name: partner_transactions partner_transactions_partner_id_foreign; Type: FK CONSTRAINT; Schema: partners; Owner: -
--

ALTER TABLE ONLY partners.partner_transactions
    ADD CONSTRAINT partner_transactions_partner_id_foreign FOREIGN KEY (partner_id) REFERENCES partners.partners(id);

--
-- PostgreSQL database dump complete
--
