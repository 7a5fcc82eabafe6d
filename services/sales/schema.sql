--
-- PostgreSQL database dump
--

--
-- Name: sales; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA sales;

--
-- Name: partner_fenced(integer, integer); Type: FUNCTION; Schema: sales; Owner: -
--

CREATE FUNCTION sales.partner_fenced(org integer, partner integer) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
     begin
       perform pg_advisory_xact_lock_shared(hashtextextended('partner_delete_fence:' || current_schema() || ':' || org || ':' || partner, 0));
       return exists (select 1 from "sales".partner_delete_fences f where f.org_id = org and f.partner_id = partner);
     end
     $$;

--
-- Name: require_as_decided(boolean); Type: FUNCTION; Schema: sales; Owner: -
--

CREATE FUNCTION sales.require_as_decided(as_decided boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = 'BO412';
           end if;
           return as_decided;
         end $$;

--
-- Name: require_key_free(boolean); Type: FUNCTION; Schema: sales; Owner: -
--

CREATE FUNCTION sales.require_key_free(free boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = 'BO423';
           end if;
           return free;
         end $$;

--
-- Name: require_recorded(bigint); Type: FUNCTION; Schema: sales; Owner: -
--

CREATE FUNCTION sales.require_recorded(recorded bigint) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = 'BO409';
           end if;
           return recorded;
         end $$;

--
-- Name: document_logos; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.document_logos (
    org_id integer NOT NULL,
    sha256 character varying(64) NOT NULL,
    png bytea NOT NULL
);

--
-- Name: document_sequences; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.document_sequences (
    org_id integer NOT NULL,
    series character varying(20) NOT NULL,
    last_value bigint NOT NULL
);

--
-- Name: event_dead_letters; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.event_dead_letters (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    dead_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: event_deliveries; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.event_deliveries (
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
-- Name: idempotency; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.idempotency (
    org_id integer NOT NULL,
    key character varying(255) NOT NULL,
    operation character varying(100) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status integer NOT NULL,
    reply text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: inbox; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.inbox (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: organization_settings; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.organization_settings (
    org_id integer NOT NULL,
    time_zone character varying(64),
    version integer NOT NULL,
    default_currency character varying(3),
    rounding character varying(8),
    cash_rounding numeric(14,4)
);

--
-- Name: outbox; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: sales; Owner: -
--

CREATE SEQUENCE sales.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: sales; Owner: -
--

ALTER SEQUENCE sales.outbox_id_seq OWNED BY sales.outbox.id;

--
-- Name: partner_delete_fences; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.partner_delete_fences (
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    fenced_until timestamp with time zone NOT NULL
);

--
-- Name: partner_directory; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.partner_directory (
    org_id integer NOT NULL,
    id integer NOT NULL,
    partnername character varying(200) NOT NULL,
    display_name character varying(200) NOT NULL,
    currency character varying(3),
    partner_type character varying(16),
    version integer DEFAULT 0 NOT NULL,
    deleted_at timestamp with time zone,
    ibans text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: quotation_lines; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.quotation_lines (
    id integer NOT NULL,
    org_id integer NOT NULL,
    quotation_id integer NOT NULL,
    product_id character varying(64) NOT NULL,
    product_name character varying(200),
    description text,
    quantity numeric(18,4) NOT NULL,
    price numeric(18,4) NOT NULL,
    discount numeric(7,4) DEFAULT '0'::numeric NOT NULL,
    tax_rate numeric(7,4) NOT NULL,
    tax_included boolean NOT NULL,
    subtotal numeric NOT NULL,
    tax_amount numeric NOT NULL,
    total numeric NOT NULL,
    discount_amount numeric NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    variant_id character varying(64),
    location_id character varying(64),
    sku character varying(100),
    uom character varying(50),
    tax_category character varying(2) NOT NULL,
    tax_exemption_reason text,
    tax_exemption_code character varying(40),
    reverse_charge_rate numeric(9,4)
);

--
-- Name: quotation_lines_id_seq; Type: SEQUENCE; Schema: sales; Owner: -
--

CREATE SEQUENCE sales.quotation_lines_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: quotation_lines_id_seq; Type: SEQUENCE OWNED BY; Schema: sales; Owner: -
--

ALTER SEQUENCE sales.quotation_lines_id_seq OWNED BY sales.quotation_lines.id;

--
-- Name: quotations; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.quotations (
    id integer NOT NULL,
    org_id integer NOT NULL,
    quotation_number character varying(50) NOT NULL,
    quotation_type character varying(16) NOT NULL,
    status character varying(16) NOT NULL,
    partner_id integer NOT NULL,
    quotation_date timestamp with time zone NOT NULL,
    valid_until date NOT NULL,
    comments text,
    quotation_reference character varying(200),
    subtotal numeric DEFAULT '0'::numeric NOT NULL,
    tax_amount numeric DEFAULT '0'::numeric NOT NULL,
    discount_total numeric DEFAULT '0'::numeric NOT NULL,
    total numeric DEFAULT '0'::numeric NOT NULL,
    line_count integer DEFAULT 0 NOT NULL,
    invoice_id integer,
    invoicenumber character varying(64),
    invoicetype character varying(16),
    converted_at timestamp with time zone,
    convert_key character varying(255),
    cancelled_at timestamp with time zone,
    created_by character varying(64),
    updated_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    conversion_attempted_at timestamp with time zone,
    convert_invoicetype character varying(16),
    convert_user character varying(64),
    conversion_attempts integer DEFAULT 0 NOT NULL,
    conversion_lease_until timestamp with time zone,
    converted_invoice jsonb,
    currency character varying(3),
    issued_parties jsonb,
    allowances_charges jsonb DEFAULT '[]'::jsonb NOT NULL,
    tax_breakdown jsonb DEFAULT '[]'::jsonb NOT NULL,
    allowance_total numeric(20,4) DEFAULT 0 NOT NULL,
    charge_total numeric(20,4) DEFAULT 0 NOT NULL,
    vat_total numeric(20,4) DEFAULT 0 NOT NULL,
    rounding_amount numeric(20,4) DEFAULT 0 NOT NULL,
    exchange_rate numeric(18,10),
    rounding character varying(8),
    cash_rounding numeric(14,4),
    accounting_currency character varying(3),
    CONSTRAINT quotations_status_check CHECK (((status)::text = ANY ((ARRAY['draft'::character varying, 'sent'::character varying, 'accepted'::character varying, 'converted'::character varying, 'cancelled'::character varying])::text[]))),
    CONSTRAINT quotations_type_check CHECK (((quotation_type)::text = ANY ((ARRAY['quotation'::character varying, 'proforma'::character varying, 'estimate'::character varying])::text[])))
);

--
-- Name: quotations_id_seq; Type: SEQUENCE; Schema: sales; Owner: -
--

CREATE SEQUENCE sales.quotations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: quotations_id_seq; Type: SEQUENCE OWNED BY; Schema: sales; Owner: -
--

ALTER SEQUENCE sales.quotations_id_seq OWNED BY sales.quotations.id;

--
-- Name: schema_migrations; Type: TABLE; Schema: sales; Owner: -
--

CREATE TABLE sales.schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: outbox id; Type: DEFAULT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.outbox ALTER COLUMN id SET DEFAULT nextval('sales.outbox_id_seq'::regclass);

--
-- Name: quotation_lines id; Type: DEFAULT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotation_lines ALTER COLUMN id SET DEFAULT nextval('sales.quotation_lines_id_seq'::regclass);

--
-- Name: quotations id; Type: DEFAULT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotations ALTER COLUMN id SET DEFAULT nextval('sales.quotations_id_seq'::regclass);

--
-- Name: document_logos document_logos_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.document_logos
    ADD CONSTRAINT document_logos_pkey PRIMARY KEY (org_id, sha256);

--
-- Name: document_sequences document_sequences_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.document_sequences
    ADD CONSTRAINT document_sequences_pkey PRIMARY KEY (org_id, series);

--
-- Name: event_dead_letters event_dead_letters_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.event_dead_letters
    ADD CONSTRAINT event_dead_letters_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: event_deliveries event_deliveries_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.event_deliveries
    ADD CONSTRAINT event_deliveries_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (org_id, key);

--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: organization_settings organization_settings_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.organization_settings
    ADD CONSTRAINT organization_settings_pkey PRIMARY KEY (org_id);

--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: partner_delete_fences partner_delete_fences_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.partner_delete_fences
    ADD CONSTRAINT partner_delete_fences_pkey PRIMARY KEY (org_id, partner_id);

--
-- Name: partner_directory partner_directory_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.partner_directory
    ADD CONSTRAINT partner_directory_pkey PRIMARY KEY (org_id, id);

--
-- Name: quotation_lines quotation_lines_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotation_lines
    ADD CONSTRAINT quotation_lines_pkey PRIMARY KEY (id);

--
-- Name: quotations quotations_org_number_unique; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotations
    ADD CONSTRAINT quotations_org_number_unique UNIQUE (org_id, quotation_number);

--
-- Name: quotations quotations_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotations
    ADD CONSTRAINT quotations_pkey PRIMARY KEY (id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);

--
-- Name: idempotency_created; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX idempotency_created ON sales.idempotency USING btree (created_at);

--
-- Name: inbox_processed; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX inbox_processed ON sales.inbox USING btree (processed_at);

--
-- Name: outbox_published; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX outbox_published ON sales.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);

--
-- Name: outbox_unpublished; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX outbox_unpublished ON sales.outbox USING btree (id) WHERE (published_at IS NULL);

--
-- Name: quotation_lines_quotation_id_id_index; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX quotation_lines_quotation_id_id_index ON sales.quotation_lines USING btree (quotation_id, id);

--
-- Name: quotations_conversion_unfinished; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX quotations_conversion_unfinished ON sales.quotations USING btree (conversion_lease_until) WHERE ((conversion_attempted_at IS NOT NULL) AND ((status)::text = ANY ((ARRAY['draft'::character varying, 'sent'::character varying, 'accepted'::character varying])::text[])));

--
-- Name: quotations_org_newest; Type: INDEX; Schema: sales; Owner: -
--

CREATE INDEX quotations_org_newest ON sales.quotations USING btree (org_id, id DESC);

--
-- Name: quotation_lines quotation_lines_quotation_id_foreign; Type: FK CONSTRAINT; Schema: sales; Owner: -
--

ALTER TABLE ONLY sales.quotation_lines
    ADD CONSTRAINT quotation_lines_quotation_id_foreign FOREIGN KEY (quotation_id) REFERENCES sales.quotations(id);

--
-- PostgreSQL database dump complete
--
