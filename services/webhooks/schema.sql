--
-- PostgreSQL database dump
--

--
-- Name: webhooks; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA webhooks;

--
-- Name: require_as_decided(boolean); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.require_as_decided(as_decided boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = 'BO412';
           end if;
           return as_decided;
         end $$;

--
-- Name: require_key_free(boolean); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.require_key_free(free boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = 'BO423';
           end if;
           return free;
         end $$;

--
-- Name: require_recorded(bigint); Type: FUNCTION; Schema: webhooks; Owner: -
--

CREATE FUNCTION webhooks.require_recorded(recorded bigint) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = 'BO409';
           end if;
           return recorded;
         end $$;

--
-- Name: deliveries; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.deliveries (
    id integer NOT NULL,
    org_id integer NOT NULL,
    endpoint_id integer NOT NULL,
    event_id uuid NOT NULL,
    event_type text NOT NULL,
    payload jsonb NOT NULL,
    status character varying(16) DEFAULT 'pending'::character varying NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    failed_in_a_row integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    leased_until timestamp with time zone,
    lease_id uuid,
    last_attempt_at timestamp with time zone,
    last_http_status integer,
    last_duration_ms integer,
    last_error text,
    delivered_at timestamp with time zone,
    traceparent text,
    tracestate text,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT deliveries_status_check CHECK (((status)::text = ANY ((ARRAY['pending'::character varying, 'delivered'::character varying, 'failed'::character varying])::text[])))
);

--
-- Name: deliveries_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.deliveries_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: deliveries_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.deliveries_id_seq OWNED BY webhooks.deliveries.id;

--
-- Name: delivery_attempts; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.delivery_attempts (
    id integer NOT NULL,
    delivery_id integer NOT NULL,
    attempt integer NOT NULL,
    at timestamp with time zone NOT NULL,
    http_status integer,
    duration_ms integer NOT NULL,
    error text,
    response_excerpt text
);

--
-- Name: delivery_attempts_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.delivery_attempts_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: delivery_attempts_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.delivery_attempts_id_seq OWNED BY webhooks.delivery_attempts.id;

--
-- Name: document_sequences; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.document_sequences (
    org_id integer NOT NULL,
    series character varying(20) NOT NULL,
    last_value bigint NOT NULL
);

--
-- Name: endpoints; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.endpoints (
    id integer NOT NULL,
    org_id integer NOT NULL,
    url text NOT NULL,
    description text,
    events jsonb NOT NULL,
    status character varying(16) DEFAULT 'enabled'::character varying NOT NULL,
    disabled_reason character varying(16),
    disabled_at timestamp with time zone,
    failing_since timestamp with time zone,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone,
    version integer DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    deleted_at timestamp with time zone,
    CONSTRAINT endpoints_status_check CHECK (((status)::text = ANY ((ARRAY['enabled'::character varying, 'disabled'::character varying])::text[])))
);

--
-- Name: endpoints_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.endpoints_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: endpoints_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.endpoints_id_seq OWNED BY webhooks.endpoints.id;

--
-- Name: event_dead_letters; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.event_dead_letters (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    dead_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: event_deliveries; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.event_deliveries (
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
-- Name: idempotency; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.idempotency (
    org_id integer NOT NULL,
    key character varying(255) NOT NULL,
    operation character varying(100) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status integer NOT NULL,
    reply text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: inbox; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.inbox (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: outbox; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: webhooks; Owner: -
--

CREATE SEQUENCE webhooks.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: webhooks; Owner: -
--

ALTER SEQUENCE webhooks.outbox_id_seq OWNED BY webhooks.outbox.id;

--
-- Name: route_claims; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.route_claims (
    id uuid DEFAULT gen_random_uuid() NOT NULL,
    types jsonb NOT NULL,
    expires_at timestamp with time zone NOT NULL
);

--
-- Name: route_lease; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.route_lease (
    id integer DEFAULT 1 NOT NULL,
    holder uuid,
    until timestamp with time zone,
    broken_until timestamp with time zone,
    CONSTRAINT route_lease_id_check CHECK ((id = 1))
);

--
-- Name: schema_migrations; Type: TABLE; Schema: webhooks; Owner: -
--

CREATE TABLE webhooks.schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: deliveries id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries ALTER COLUMN id SET DEFAULT nextval('webhooks.deliveries_id_seq'::regclass);

--
-- Name: delivery_attempts id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.delivery_attempts ALTER COLUMN id SET DEFAULT nextval('webhooks.delivery_attempts_id_seq'::regclass);

--
-- Name: endpoints id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.endpoints ALTER COLUMN id SET DEFAULT nextval('webhooks.endpoints_id_seq'::regclass);

--
-- Name: outbox id; Type: DEFAULT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.outbox ALTER COLUMN id SET DEFAULT nextval('webhooks.outbox_id_seq'::regclass);

--
-- Name: deliveries deliveries_endpoint_event; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries
    ADD CONSTRAINT deliveries_endpoint_event UNIQUE (endpoint_id, event_id);

--
-- Name: deliveries deliveries_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries
    ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id);

--
-- Name: delivery_attempts delivery_attempts_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.delivery_attempts
    ADD CONSTRAINT delivery_attempts_pkey PRIMARY KEY (id);

--
-- Name: document_sequences document_sequences_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.document_sequences
    ADD CONSTRAINT document_sequences_pkey PRIMARY KEY (org_id, series);

--
-- Name: endpoints endpoints_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.endpoints
    ADD CONSTRAINT endpoints_pkey PRIMARY KEY (id);

--
-- Name: event_dead_letters event_dead_letters_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.event_dead_letters
    ADD CONSTRAINT event_dead_letters_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: event_deliveries event_deliveries_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.event_deliveries
    ADD CONSTRAINT event_deliveries_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (org_id, key);

--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: route_claims route_claims_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.route_claims
    ADD CONSTRAINT route_claims_pkey PRIMARY KEY (id);

--
-- Name: route_lease route_lease_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.route_lease
    ADD CONSTRAINT route_lease_pkey PRIMARY KEY (id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);

--
-- Name: deliveries_endpoint; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_endpoint ON webhooks.deliveries USING btree (endpoint_id, id DESC);

--
-- Name: deliveries_endpoint_due; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_endpoint_due ON webhooks.deliveries USING btree (endpoint_id, next_attempt_at, id) WHERE ((status)::text = 'pending'::text);

--
-- Name: deliveries_leased; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX deliveries_leased ON webhooks.deliveries USING btree (endpoint_id) WHERE (leased_until IS NOT NULL);

--
-- Name: delivery_attempts_delivery_id_index; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX delivery_attempts_delivery_id_index ON webhooks.delivery_attempts USING btree (delivery_id);

--
-- Name: endpoints_org; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX endpoints_org ON webhooks.endpoints USING btree (org_id, id) WHERE (deleted_at IS NULL);

--
-- Name: idempotency_created; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX idempotency_created ON webhooks.idempotency USING btree (created_at);

--
-- Name: inbox_processed; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX inbox_processed ON webhooks.inbox USING btree (processed_at);

--
-- Name: outbox_published; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX outbox_published ON webhooks.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);

--
-- Name: outbox_unpublished; Type: INDEX; Schema: webhooks; Owner: -
--

CREATE INDEX outbox_unpublished ON webhooks.outbox USING btree (id) WHERE (published_at IS NULL);

--
-- Name: deliveries deliveries_endpoint_id_foreign; Type: FK CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.deliveries
    ADD CONSTRAINT deliveries_endpoint_id_foreign FOREIGN KEY (endpoint_id) REFERENCES webhooks.endpoints(id) ON DELETE CASCADE;

--
-- Name: delivery_attempts delivery_attempts_delivery_id_foreign; Type: FK CONSTRAINT; Schema: webhooks; Owner: -
--

ALTER TABLE ONLY webhooks.delivery_attempts
    ADD CONSTRAINT delivery_attempts_delivery_id_foreign FOREIGN KEY (delivery_id) REFERENCES webhooks.deliveries(id) ON DELETE CASCADE;

--
-- PostgreSQL database dump complete
--
