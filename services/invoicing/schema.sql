--
-- PostgreSQL database dump
--

--
-- Name: invoicing; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA invoicing;

--
-- Name: invoice_version(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.invoice_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
         begin
           if tg_op = 'INSERT' then
             new.version := 1;
           elsif old.version_xact is distinct from pg_current_xact_id() then
             new.version := old.version + 1;
           else
             new.version := old.version;
           end if;
           new.version_xact := pg_current_xact_id();
           return new;
         end $$;

--
-- Name: organization_settings; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.organization_settings (
    org_id integer NOT NULL,
    time_zone character varying(64),
    version integer NOT NULL,
    default_currency character varying(3),
    rounding character varying(8),
    cash_rounding numeric(14,4),
    lock_date date,
    books_version bigint DEFAULT 0 NOT NULL
);

--
-- Name: organization_settings_held(integer); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.organization_settings_held(org integer) RETURNS SETOF invoicing.organization_settings
    LANGUAGE plpgsql
    AS $$
     begin
       perform pg_advisory_xact_lock_shared(hashtextextended('organization_settings:' || current_schema() || ':' || org, 0));
       return query select s.* from "invoicing".organization_settings s where s.org_id = org;
     end
     $$;

--
-- Name: partner_fenced(integer, integer); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.partner_fenced(org integer, partner integer) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
     begin
       perform pg_advisory_xact_lock_shared(hashtextextended('partner_delete_fence:' || current_schema() || ':' || org || ':' || partner, 0));
       return exists (select 1 from "invoicing".partner_delete_fences f where f.org_id = org and f.partner_id = partner);
     end
     $$;

--
-- Name: payment_allocations_partner(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.payment_allocations_partner() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
         begin
           select i.partner_id into new.partner_id from "invoicing".invoices i where i.id = new.invoice_id;
           return new;
         end $$;

--
-- Name: require_as_decided(boolean); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.require_as_decided(as_decided boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not coalesce(as_decided, false) then
             raise exception 'what a one-statement write decided on was not there' using errcode = 'BO412';
           end if;
           return as_decided;
         end $$;

--
-- Name: require_key_free(boolean); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.require_key_free(free boolean) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
         begin
           if not free then
             raise exception 'operation key held by a twin still running' using errcode = 'BO423';
           end if;
           return free;
         end $$;

--
-- Name: require_recorded(bigint); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.require_recorded(recorded bigint) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
         begin
           if recorded = 0 then
             raise exception 'operation key already recorded' using errcode = 'BO409';
           end if;
           return recorded;
         end $$;

--
-- Name: vat_daily_totals_add(); Type: FUNCTION; Schema: invoicing; Owner: -
--

CREATE FUNCTION invoicing.vat_daily_totals_add() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
         begin
           insert into "invoicing".vat_daily_totals as t (org_id, day, invoicetype, account, tax_category, tax_rate, debit, credit, base)
           
        select e.org_id, e.journaldate, i.invoicetype,
               case when l.account in ('2200 Tax Payable', '1400 Tax Receivable') then l.account end,
               l.tax_category, l.tax_rate, sum(l.debit), sum(l.credit), coalesce(sum(abs(l.tax_base)), 0)
          from new_lines l
          join "invoicing".journal_entries e on e.id = l.entry_id and e.kind = 'invoice'
          join "invoicing".invoices i on i.id = e.invoice_id
         where l.account in ('2200 Tax Payable', '1400 Tax Receivable')
            or (l.tax_category is not null and not exists (
                  select 1 from "invoicing".journal_lines v
                   where v.entry_id = l.entry_id and v.account in ('2200 Tax Payable', '1400 Tax Receivable')
                     and v.tax_category is not distinct from l.tax_category and v.tax_rate is not distinct from l.tax_rate))
         group by 1, 2, 3, 4, 5, 6
         order by 1, 2, 3, 4, 5, 6
           on conflict (org_id, day, invoicetype, account, tax_category, tax_rate)
           do update set debit = t.debit + excluded.debit, credit = t.credit + excluded.credit, base = t.base + excluded.base;
           return null;
         end $$;

--
-- Name: bank_lines; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.bank_lines (
    id integer NOT NULL,
    org_id integer NOT NULL,
    statement_id integer NOT NULL,
    iban character varying(40) NOT NULL,
    natural_key character varying(200) NOT NULL,
    amount numeric(18,2) NOT NULL,
    currency character varying(3) NOT NULL,
    booking_date date NOT NULL,
    value_date date,
    bank_reference character varying(200),
    end_to_end_id character varying(200),
    structured_reference character varying(200),
    remittance_text text,
    counterparty_name character varying(200),
    counterparty_iban character varying(40),
    status character varying(10) DEFAULT 'unmatched'::character varying NOT NULL,
    CONSTRAINT bank_lines_status_check CHECK (((status)::text = ANY ((ARRAY['unmatched'::character varying, 'suggested'::character varying, 'reconciled'::character varying, 'ignored'::character varying])::text[])))
);

--
-- Name: bank_lines_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.bank_lines_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: bank_lines_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.bank_lines_id_seq OWNED BY invoicing.bank_lines.id;

--
-- Name: bank_reconciliations; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.bank_reconciliations (
    id integer NOT NULL,
    org_id integer NOT NULL,
    line_id integer NOT NULL,
    payment_id integer,
    made_payment boolean DEFAULT false NOT NULL,
    journal_entry_id integer,
    status character varying(10) DEFAULT 'active'::character varying NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    undone_at timestamp with time zone
);

--
-- Name: bank_reconciliations_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.bank_reconciliations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: bank_reconciliations_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.bank_reconciliations_id_seq OWNED BY invoicing.bank_reconciliations.id;

--
-- Name: bank_rules; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.bank_rules (
    id integer NOT NULL,
    org_id integer NOT NULL,
    name character varying(100) NOT NULL,
    match_text character varying(200),
    match_iban character varying(40),
    partner_id integer,
    account character varying(100),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: bank_rules_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.bank_rules_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: bank_rules_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.bank_rules_id_seq OWNED BY invoicing.bank_rules.id;

--
-- Name: bank_settings; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.bank_settings (
    org_id integer NOT NULL,
    autoreconcile boolean DEFAULT true NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: bank_statements; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.bank_statements (
    id integer NOT NULL,
    org_id integer NOT NULL,
    journal character varying(100) NOT NULL,
    iban character varying(40) NOT NULL,
    statement_id character varying(100) NOT NULL,
    sequence character varying(40),
    format character varying(10) NOT NULL,
    currency character varying(3) NOT NULL,
    opening_balance numeric(18,2) NOT NULL,
    closing_balance numeric(18,2) NOT NULL,
    statement_date date,
    line_count integer NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: bank_statements_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.bank_statements_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: bank_statements_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.bank_statements_id_seq OWNED BY invoicing.bank_statements.id;

--
-- Name: document_logos; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.document_logos (
    org_id integer NOT NULL,
    sha256 character varying(64) NOT NULL,
    png bytea NOT NULL
);

--
-- Name: document_sequences; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.document_sequences (
    org_id integer NOT NULL,
    series character varying(20) NOT NULL,
    last_value bigint NOT NULL
);

--
-- Name: dunning_letters; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.dunning_letters (
    id integer NOT NULL,
    org_id integer NOT NULL,
    invoice_id integer NOT NULL,
    partner_id integer NOT NULL,
    level integer NOT NULL,
    as_of date NOT NULL,
    due_date date NOT NULL,
    currency character varying(3) NOT NULL,
    due_amount numeric(18,4) NOT NULL,
    days_overdue integer NOT NULL,
    fee numeric(18,4) NOT NULL,
    interest_rate numeric(9,4),
    interest numeric(18,4) NOT NULL,
    total numeric(18,4) NOT NULL,
    text text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    fee_invoice_id integer
);

--
-- Name: dunning_letters_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.dunning_letters_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: dunning_letters_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.dunning_letters_id_seq OWNED BY invoicing.dunning_letters.id;

--
-- Name: dunning_levels; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.dunning_levels (
    org_id integer NOT NULL,
    level integer NOT NULL,
    days_after_due integer NOT NULL,
    fee numeric(18,4) NOT NULL,
    interest boolean NOT NULL,
    text text NOT NULL
);

--
-- Name: dunning_settings; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.dunning_settings (
    org_id integer NOT NULL,
    reference_rate numeric(9,4),
    points numeric(9,4) DEFAULT '8'::numeric NOT NULL,
    post_fees boolean DEFAULT false NOT NULL,
    fee_tax jsonb,
    fee_account character varying(100) DEFAULT '4750 Reminder Fees'::character varying NOT NULL
);

--
-- Name: event_dead_letters; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.event_dead_letters (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    envelope jsonb NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    dead_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: event_deliveries; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.event_deliveries (
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
-- Name: exchange_rates; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.exchange_rates (
    id integer NOT NULL,
    org_id integer NOT NULL,
    currency character varying(3) NOT NULL,
    rate_date date NOT NULL,
    rate numeric(18,10) NOT NULL,
    accounting_currency character varying(3) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    CONSTRAINT exchange_rates_rate_check CHECK ((rate > (0)::numeric))
);

--
-- Name: exchange_rates_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.exchange_rates_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: exchange_rates_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.exchange_rates_id_seq OWNED BY invoicing.exchange_rates.id;

--
-- Name: idempotency; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.idempotency (
    org_id integer NOT NULL,
    key character varying(255) NOT NULL,
    operation character varying(100) NOT NULL,
    request_hash character varying(64) NOT NULL,
    status integer NOT NULL,
    reply text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: inbound_documents; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.inbound_documents (
    id integer NOT NULL,
    org_id integer NOT NULL,
    status character varying(16) NOT NULL,
    syntax character varying(8) NOT NULL,
    original bytea NOT NULL,
    sha256 character(64) NOT NULL,
    content_type character varying(100) NOT NULL,
    filename character varying(255),
    supplier_key character varying(200),
    partner_id integer,
    invoice_number character varying(200),
    issue_date date,
    summary jsonb NOT NULL,
    validation jsonb NOT NULL,
    review_reasons jsonb DEFAULT '[]'::jsonb NOT NULL,
    rejection_reason text,
    invoice_id integer,
    received_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    notes jsonb DEFAULT '[]'::jsonb NOT NULL,
    CONSTRAINT inbound_documents_status_check CHECK (((status)::text = ANY ((ARRAY['bill_created'::character varying, 'needs_review'::character varying, 'rejected'::character varying])::text[]))),
    CONSTRAINT inbound_documents_syntax_check CHECK (((syntax)::text = ANY ((ARRAY['ubl'::character varying, 'cii'::character varying, 'facturx'::character varying])::text[])))
);

--
-- Name: inbound_documents_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.inbound_documents_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: inbound_documents_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.inbound_documents_id_seq OWNED BY invoicing.inbound_documents.id;

--
-- Name: inbound_product_map; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.inbound_product_map (
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    product_key character varying(300) NOT NULL,
    product_id integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: inbound_settings; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.inbound_settings (
    org_id integer NOT NULL,
    create_partners boolean DEFAULT false NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: inbox; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.inbox (
    consumer text NOT NULL,
    event_id uuid NOT NULL,
    type text NOT NULL,
    processed_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: invoice_lines; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoice_lines (
    id integer NOT NULL,
    org_id integer NOT NULL,
    invoice_id integer NOT NULL,
    product_id character varying(64) NOT NULL,
    product_name character varying(200),
    description text,
    quantity numeric(18,4) NOT NULL,
    price numeric(18,4) NOT NULL,
    discount numeric(9,4) DEFAULT '0'::numeric NOT NULL,
    tax_rate numeric(9,4) NOT NULL,
    tax_included boolean NOT NULL,
    subtotal numeric NOT NULL,
    tax_amount numeric NOT NULL,
    total numeric NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    variant_id character varying(64),
    location_id character varying(64),
    sku character varying(100),
    uom character varying(50),
    catalog_checked boolean DEFAULT true NOT NULL,
    tax_category character varying(2) NOT NULL,
    tax_exemption_reason text,
    tax_exemption_code character varying(40),
    reverse_charge_rate numeric(9,4),
    stocked numeric,
    stated_tax numeric(20,4)
);

--
-- Name: invoice_lines_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.invoice_lines_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: invoice_lines_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.invoice_lines_id_seq OWNED BY invoicing.invoice_lines.id;

--
-- Name: invoices; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.invoices (
    id integer NOT NULL,
    org_id integer NOT NULL,
    invoicenumber character varying(50) NOT NULL,
    invoicetype character varying(16) NOT NULL,
    partner_id integer NOT NULL,
    invoicestatus character varying(16) NOT NULL,
    invoicedatetime timestamp with time zone NOT NULL,
    invoicedue date,
    comments text,
    invoicereference character varying(200),
    invoiceterms text,
    subtotal numeric DEFAULT '0'::numeric NOT NULL,
    tax_amount numeric DEFAULT '0'::numeric NOT NULL,
    invoicetotal numeric DEFAULT '0'::numeric NOT NULL,
    amount_paid numeric DEFAULT 0.00 NOT NULL,
    sourceid character varying(64),
    sourcenumber character varying(64),
    sourcetype character varying(64),
    chartofaccounts character varying(100),
    invoicejournal character varying(100),
    tradeaccount character varying(100),
    created_by character varying(64),
    recurring_enabled boolean DEFAULT false NOT NULL,
    recurring_frequency character varying(16),
    recurring_start_date date,
    recurring_next_run_date date,
    recurring_next_index integer DEFAULT 0 NOT NULL,
    recurring_occurrences integer DEFAULT 0 NOT NULL,
    recurring_generated integer DEFAULT 0 NOT NULL,
    recurring_status character varying(16),
    recurring_cancellation_reason text,
    parent_id integer,
    run_date date,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    updated_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    validated_at timestamp with time zone,
    cancelled_at timestamp with time zone,
    paid_at timestamp with time zone,
    converted_from_quotation_id integer,
    credits_invoice_id integer,
    restock boolean DEFAULT true NOT NULL,
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
    written_off_amount numeric DEFAULT 0.00 NOT NULL,
    written_off_at timestamp with time zone,
    write_off_reason text,
    write_off_journal_entry_id integer,
    version integer DEFAULT 1 NOT NULL,
    version_xact xid8,
    accounting_currency character varying(3),
    payment_reference text,
    dunning_disputed boolean DEFAULT false NOT NULL,
    dunning_dispute_reason text,
    dunning_disputed_at timestamp with time zone,
    CONSTRAINT invoices_paid_check CHECK (((amount_paid >= (0)::numeric) AND (written_off_amount >= (0)::numeric) AND ((amount_paid + written_off_amount) <= invoicetotal))),
    CONSTRAINT invoices_status_check CHECK (((invoicestatus)::text = ANY ((ARRAY['draft'::character varying, 'proforma'::character varying, 'open'::character varying, 'paid'::character varying, 'cancelled'::character varying, 'written_off'::character varying])::text[]))),
    CONSTRAINT invoices_type_check CHECK (((invoicetype)::text = ANY ((ARRAY['invoiceout'::character varying, 'creditout'::character varying, 'invoicein'::character varying, 'creditin'::character varying])::text[])))
);

--
-- Name: invoices_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.invoices_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: invoices_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.invoices_id_seq OWNED BY invoicing.invoices.id;

--
-- Name: issued_files; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.issued_files (
    org_id integer NOT NULL,
    invoice_id integer NOT NULL,
    format character varying(16) NOT NULL,
    filename character varying(200) NOT NULL,
    content_type character varying(100) NOT NULL,
    content bytea NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: journal_entries; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.journal_entries (
    id integer NOT NULL,
    org_id integer NOT NULL,
    invoice_id integer,
    kind character varying(10) NOT NULL,
    journalname character varying(100) NOT NULL,
    journaldate date NOT NULL,
    amount numeric NOT NULL,
    reference character varying(64) NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    payment_id integer
);

--
-- Name: journal_entries_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.journal_entries_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: journal_entries_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.journal_entries_id_seq OWNED BY invoicing.journal_entries.id;

--
-- Name: journal_lines; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.journal_lines (
    id integer NOT NULL,
    entry_id integer NOT NULL,
    account character varying(100) NOT NULL,
    label character varying(100) NOT NULL,
    debit numeric NOT NULL,
    credit numeric NOT NULL,
    tax_category character varying(2),
    tax_rate numeric(9,4),
    tax_base numeric
);

--
-- Name: journal_lines_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.journal_lines_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: journal_lines_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.journal_lines_id_seq OWNED BY invoicing.journal_lines.id;

--
-- Name: outbox; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.outbox (
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
-- Name: outbox_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.outbox_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: outbox_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.outbox_id_seq OWNED BY invoicing.outbox.id;

--
-- Name: partner_credit_locks; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.partner_credit_locks (
    org_id integer NOT NULL,
    partner_id integer NOT NULL
);

--
-- Name: partner_delete_fences; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.partner_delete_fences (
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    fenced_until timestamp with time zone NOT NULL
);

--
-- Name: partner_directory; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.partner_directory (
    org_id integer NOT NULL,
    id integer NOT NULL,
    partnername character varying(200) NOT NULL,
    display_name character varying(200) NOT NULL,
    deleted_at timestamp with time zone,
    partner_type character varying(16),
    currency character varying(3),
    version integer DEFAULT 0 NOT NULL,
    ibans text[] DEFAULT '{}'::text[] NOT NULL
);

--
-- Name: payment_allocations; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.payment_allocations (
    id integer NOT NULL,
    org_id integer NOT NULL,
    payment_id integer,
    credit_note_id integer,
    invoice_id integer NOT NULL,
    amount numeric NOT NULL,
    allocation_date date NOT NULL,
    status character varying(10) DEFAULT 'active'::character varying NOT NULL,
    journal_entry_id integer,
    operation_key character varying(200),
    seq integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    voided_at timestamp with time zone,
    settles_credited boolean DEFAULT false NOT NULL,
    partner_id integer NOT NULL,
    CONSTRAINT payment_allocations_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT payment_allocations_source_check CHECK (((payment_id IS NULL) <> (credit_note_id IS NULL))),
    CONSTRAINT payment_allocations_status_check CHECK (((status)::text = ANY ((ARRAY['active'::character varying, 'voided'::character varying])::text[])))
);

--
-- Name: payment_allocations_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.payment_allocations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: payment_allocations_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.payment_allocations_id_seq OWNED BY invoicing.payment_allocations.id;

--
-- Name: payment_file_bills; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.payment_file_bills (
    id integer NOT NULL,
    org_id integer NOT NULL,
    file_id integer NOT NULL,
    invoice_id integer NOT NULL,
    partner_id integer NOT NULL,
    amount numeric(18,2) NOT NULL,
    creditor_iban character varying(40) NOT NULL,
    end_to_end_id character varying(35) NOT NULL,
    status character varying(12) DEFAULT 'in_payment'::character varying NOT NULL,
    line_id integer,
    CONSTRAINT payment_file_bills_status_check CHECK (((status)::text = ANY ((ARRAY['in_payment'::character varying, 'paid'::character varying])::text[])))
);

--
-- Name: payment_file_bills_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.payment_file_bills_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: payment_file_bills_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.payment_file_bills_id_seq OWNED BY invoicing.payment_file_bills.id;

--
-- Name: payment_files; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.payment_files (
    id integer NOT NULL,
    org_id integer NOT NULL,
    message_id character varying(35) NOT NULL,
    execution_date date NOT NULL,
    debtor_iban character varying(40) NOT NULL,
    currency character varying(3) NOT NULL,
    total numeric(18,2) NOT NULL,
    transfers integer NOT NULL,
    content text NOT NULL,
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: payment_files_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.payment_files_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: payment_files_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.payment_files_id_seq OWNED BY invoicing.payment_files.id;

--
-- Name: payment_refunds; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.payment_refunds (
    id integer NOT NULL,
    org_id integer NOT NULL,
    partner_id integer NOT NULL,
    payment_id integer,
    credit_note_id integer,
    direction character varying(3) NOT NULL,
    amount numeric NOT NULL,
    currency character varying(3),
    refund_date date NOT NULL,
    method character varying(50),
    reference character varying(200),
    journal character varying(100) NOT NULL,
    journal_entry_id integer NOT NULL,
    operation_key character varying(200),
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    exchange_rate numeric(18,10),
    accounting_amount numeric NOT NULL,
    CONSTRAINT payment_refunds_amount_check CHECK ((amount > (0)::numeric)),
    CONSTRAINT payment_refunds_source_check CHECK (((payment_id IS NULL) <> (credit_note_id IS NULL)))
);

--
-- Name: payment_refunds_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.payment_refunds_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: payment_refunds_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.payment_refunds_id_seq OWNED BY invoicing.payment_refunds.id;

--
-- Name: payments; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.payments (
    id integer NOT NULL,
    org_id integer NOT NULL,
    invoice_id integer,
    amount numeric NOT NULL,
    payment_date date NOT NULL,
    journal character varying(100) NOT NULL,
    journal_entry_id integer NOT NULL,
    created_by character varying(64),
    created_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL,
    partner_id integer NOT NULL,
    direction character varying(3) NOT NULL,
    currency character varying(3),
    method character varying(50),
    reference character varying(200),
    status character varying(10) DEFAULT 'posted'::character varying NOT NULL,
    allocated numeric DEFAULT 0.00 NOT NULL,
    refunded numeric DEFAULT 0.00 NOT NULL,
    operation_key character varying(200),
    void_journal_entry_id integer,
    void_reason text,
    voided_at timestamp with time zone,
    void_date date,
    exchange_rate numeric(18,10),
    accounting_amount numeric NOT NULL,
    CONSTRAINT payments_amounts_check CHECK (((amount > (0)::numeric) AND (allocated >= (0)::numeric) AND (refunded >= (0)::numeric) AND ((allocated + refunded) <= amount))),
    CONSTRAINT payments_direction_check CHECK (((direction)::text = ANY ((ARRAY['in'::character varying, 'out'::character varying])::text[]))),
    CONSTRAINT payments_status_check CHECK (((status)::text = ANY ((ARRAY['posted'::character varying, 'voided'::character varying])::text[])))
);

--
-- Name: payments_id_seq; Type: SEQUENCE; Schema: invoicing; Owner: -
--

CREATE SEQUENCE invoicing.payments_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: payments_id_seq; Type: SEQUENCE OWNED BY; Schema: invoicing; Owner: -
--

ALTER SEQUENCE invoicing.payments_id_seq OWNED BY invoicing.payments.id;

--
-- Name: schema_migrations; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.schema_migrations (
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);

--
-- Name: source_link_review; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.source_link_review (
    invoice_id integer NOT NULL,
    org_id integer NOT NULL,
    invoicenumber character varying(50) NOT NULL,
    invoicetype character varying(16) NOT NULL,
    sourcetype character varying(64),
    sourceid character varying(64),
    sourcenumber character varying(64),
    reason text NOT NULL,
    noted_at timestamp with time zone DEFAULT CURRENT_TIMESTAMP NOT NULL
);

--
-- Name: vat_daily_totals; Type: TABLE; Schema: invoicing; Owner: -
--

CREATE TABLE invoicing.vat_daily_totals (
    org_id integer NOT NULL,
    day date NOT NULL,
    invoicetype character varying(16) NOT NULL,
    account character varying(255),
    tax_category character varying(255),
    tax_rate numeric,
    debit numeric NOT NULL,
    credit numeric NOT NULL,
    base numeric NOT NULL
);

--
-- Name: bank_lines id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_lines ALTER COLUMN id SET DEFAULT nextval('invoicing.bank_lines_id_seq'::regclass);

--
-- Name: bank_reconciliations id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_reconciliations ALTER COLUMN id SET DEFAULT nextval('invoicing.bank_reconciliations_id_seq'::regclass);

--
-- Name: bank_rules id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_rules ALTER COLUMN id SET DEFAULT nextval('invoicing.bank_rules_id_seq'::regclass);

--
-- Name: bank_statements id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_statements ALTER COLUMN id SET DEFAULT nextval('invoicing.bank_statements_id_seq'::regclass);

--
-- Name: dunning_letters id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_letters ALTER COLUMN id SET DEFAULT nextval('invoicing.dunning_letters_id_seq'::regclass);

--
-- Name: exchange_rates id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.exchange_rates ALTER COLUMN id SET DEFAULT nextval('invoicing.exchange_rates_id_seq'::regclass);

--
-- Name: inbound_documents id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbound_documents ALTER COLUMN id SET DEFAULT nextval('invoicing.inbound_documents_id_seq'::regclass);

--
-- Name: invoice_lines id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoice_lines ALTER COLUMN id SET DEFAULT nextval('invoicing.invoice_lines_id_seq'::regclass);

--
-- Name: invoices id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices ALTER COLUMN id SET DEFAULT nextval('invoicing.invoices_id_seq'::regclass);

--
-- Name: journal_entries id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_entries ALTER COLUMN id SET DEFAULT nextval('invoicing.journal_entries_id_seq'::regclass);

--
-- Name: journal_lines id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_lines ALTER COLUMN id SET DEFAULT nextval('invoicing.journal_lines_id_seq'::regclass);

--
-- Name: outbox id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox ALTER COLUMN id SET DEFAULT nextval('invoicing.outbox_id_seq'::regclass);

--
-- Name: payment_allocations id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations ALTER COLUMN id SET DEFAULT nextval('invoicing.payment_allocations_id_seq'::regclass);

--
-- Name: payment_file_bills id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills ALTER COLUMN id SET DEFAULT nextval('invoicing.payment_file_bills_id_seq'::regclass);

--
-- Name: payment_files id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_files ALTER COLUMN id SET DEFAULT nextval('invoicing.payment_files_id_seq'::regclass);

--
-- Name: payment_refunds id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_refunds ALTER COLUMN id SET DEFAULT nextval('invoicing.payment_refunds_id_seq'::regclass);

--
-- Name: payments id; Type: DEFAULT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payments ALTER COLUMN id SET DEFAULT nextval('invoicing.payments_id_seq'::regclass);

--
-- Name: bank_lines bank_lines_org_id_iban_natural_key_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_lines
    ADD CONSTRAINT bank_lines_org_id_iban_natural_key_unique UNIQUE (org_id, iban, natural_key);

--
-- Name: bank_lines bank_lines_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_lines
    ADD CONSTRAINT bank_lines_pkey PRIMARY KEY (id);

--
-- Name: bank_reconciliations bank_reconciliations_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_reconciliations
    ADD CONSTRAINT bank_reconciliations_pkey PRIMARY KEY (id);

--
-- Name: bank_rules bank_rules_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_rules
    ADD CONSTRAINT bank_rules_pkey PRIMARY KEY (id);

--
-- Name: bank_settings bank_settings_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_settings
    ADD CONSTRAINT bank_settings_pkey PRIMARY KEY (org_id);

--
-- Name: bank_statements bank_statements_org_id_iban_statement_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_statements
    ADD CONSTRAINT bank_statements_org_id_iban_statement_id_unique UNIQUE (org_id, iban, statement_id);

--
-- Name: bank_statements bank_statements_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_statements
    ADD CONSTRAINT bank_statements_pkey PRIMARY KEY (id);

--
-- Name: document_logos document_logos_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.document_logos
    ADD CONSTRAINT document_logos_pkey PRIMARY KEY (org_id, sha256);

--
-- Name: document_sequences document_sequences_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.document_sequences
    ADD CONSTRAINT document_sequences_pkey PRIMARY KEY (org_id, series);

--
-- Name: dunning_letters dunning_letters_org_id_invoice_id_level_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_letters
    ADD CONSTRAINT dunning_letters_org_id_invoice_id_level_unique UNIQUE (org_id, invoice_id, level);

--
-- Name: dunning_letters dunning_letters_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_letters
    ADD CONSTRAINT dunning_letters_pkey PRIMARY KEY (id);

--
-- Name: dunning_levels dunning_levels_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_levels
    ADD CONSTRAINT dunning_levels_pkey PRIMARY KEY (org_id, level);

--
-- Name: dunning_settings dunning_settings_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_settings
    ADD CONSTRAINT dunning_settings_pkey PRIMARY KEY (org_id);

--
-- Name: event_dead_letters event_dead_letters_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.event_dead_letters
    ADD CONSTRAINT event_dead_letters_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: event_deliveries event_deliveries_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.event_deliveries
    ADD CONSTRAINT event_deliveries_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: exchange_rates exchange_rates_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.exchange_rates
    ADD CONSTRAINT exchange_rates_pkey PRIMARY KEY (id);

--
-- Name: idempotency idempotency_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.idempotency
    ADD CONSTRAINT idempotency_pkey PRIMARY KEY (org_id, key);

--
-- Name: inbound_documents inbound_documents_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbound_documents
    ADD CONSTRAINT inbound_documents_pkey PRIMARY KEY (id);

--
-- Name: inbound_product_map inbound_product_map_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbound_product_map
    ADD CONSTRAINT inbound_product_map_pkey PRIMARY KEY (org_id, partner_id, product_key);

--
-- Name: inbound_settings inbound_settings_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbound_settings
    ADD CONSTRAINT inbound_settings_pkey PRIMARY KEY (org_id);

--
-- Name: inbox inbox_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbox
    ADD CONSTRAINT inbox_pkey PRIMARY KEY (consumer, event_id);

--
-- Name: invoice_lines invoice_lines_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoice_lines
    ADD CONSTRAINT invoice_lines_pkey PRIMARY KEY (id);

--
-- Name: invoices invoices_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);

--
-- Name: issued_files issued_files_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.issued_files
    ADD CONSTRAINT issued_files_pkey PRIMARY KEY (org_id, invoice_id, format);

--
-- Name: journal_entries journal_entries_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_entries
    ADD CONSTRAINT journal_entries_pkey PRIMARY KEY (id);

--
-- Name: journal_lines journal_lines_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_lines
    ADD CONSTRAINT journal_lines_pkey PRIMARY KEY (id);

--
-- Name: organization_settings organization_settings_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.organization_settings
    ADD CONSTRAINT organization_settings_pkey PRIMARY KEY (org_id);

--
-- Name: outbox outbox_event_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox
    ADD CONSTRAINT outbox_event_id_unique UNIQUE (event_id);

--
-- Name: outbox outbox_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.outbox
    ADD CONSTRAINT outbox_pkey PRIMARY KEY (id);

--
-- Name: partner_credit_locks partner_credit_locks_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.partner_credit_locks
    ADD CONSTRAINT partner_credit_locks_pkey PRIMARY KEY (org_id, partner_id);

--
-- Name: partner_delete_fences partner_delete_fences_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.partner_delete_fences
    ADD CONSTRAINT partner_delete_fences_pkey PRIMARY KEY (org_id, partner_id);

--
-- Name: partner_directory partner_directory_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.partner_directory
    ADD CONSTRAINT partner_directory_pkey PRIMARY KEY (org_id, id);

--
-- Name: payment_allocations payment_allocations_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations
    ADD CONSTRAINT payment_allocations_pkey PRIMARY KEY (id);

--
-- Name: payment_file_bills payment_file_bills_org_id_end_to_end_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills
    ADD CONSTRAINT payment_file_bills_org_id_end_to_end_id_unique UNIQUE (org_id, end_to_end_id);

--
-- Name: payment_file_bills payment_file_bills_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills
    ADD CONSTRAINT payment_file_bills_pkey PRIMARY KEY (id);

--
-- Name: payment_files payment_files_org_id_message_id_unique; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_files
    ADD CONSTRAINT payment_files_org_id_message_id_unique UNIQUE (org_id, message_id);

--
-- Name: payment_files payment_files_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_files
    ADD CONSTRAINT payment_files_pkey PRIMARY KEY (id);

--
-- Name: payment_refunds payment_refunds_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_refunds
    ADD CONSTRAINT payment_refunds_pkey PRIMARY KEY (id);

--
-- Name: payments payments_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payments
    ADD CONSTRAINT payments_pkey PRIMARY KEY (id);

--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (name);

--
-- Name: source_link_review source_link_review_pkey; Type: CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.source_link_review
    ADD CONSTRAINT source_link_review_pkey PRIMARY KEY (invoice_id);

--
-- Name: bank_lines_org_id_status_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX bank_lines_org_id_status_id_index ON invoicing.bank_lines USING btree (org_id, status, id);

--
-- Name: bank_lines_statement_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX bank_lines_statement_id_index ON invoicing.bank_lines USING btree (statement_id);

--
-- Name: bank_reconciliations_line_active; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX bank_reconciliations_line_active ON invoicing.bank_reconciliations USING btree (line_id) WHERE ((status)::text = 'active'::text);

--
-- Name: bank_reconciliations_payment_active; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX bank_reconciliations_payment_active ON invoicing.bank_reconciliations USING btree (payment_id) WHERE ((status)::text = 'active'::text);

--
-- Name: bank_rules_org_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX bank_rules_org_id_index ON invoicing.bank_rules USING btree (org_id);

--
-- Name: bank_statements_org_id_iban_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX bank_statements_org_id_iban_id_index ON invoicing.bank_statements USING btree (org_id, iban, id);

--
-- Name: dunning_letters_fee_invoice; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX dunning_letters_fee_invoice ON invoicing.dunning_letters USING btree (org_id, fee_invoice_id) WHERE (fee_invoice_id IS NOT NULL);

--
-- Name: dunning_letters_org_id_partner_id_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX dunning_letters_org_id_partner_id_id_index ON invoicing.dunning_letters USING btree (org_id, partner_id, id);

--
-- Name: exchange_rates_key; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX exchange_rates_key ON invoicing.exchange_rates USING btree (org_id, currency, rate_date);

--
-- Name: idempotency_created; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX idempotency_created ON invoicing.idempotency USING btree (created_at);

--
-- Name: inbound_documents_org_sha256; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX inbound_documents_org_sha256 ON invoicing.inbound_documents USING btree (org_id, sha256);

--
-- Name: inbound_documents_org_status; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX inbound_documents_org_status ON invoicing.inbound_documents USING btree (org_id, status, id DESC);

--
-- Name: inbound_documents_org_supplier_number; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX inbound_documents_org_supplier_number ON invoicing.inbound_documents USING btree (org_id, supplier_key, invoice_number, issue_date) WHERE ((supplier_key IS NOT NULL) AND (invoice_number IS NOT NULL) AND (issue_date IS NOT NULL));

--
-- Name: inbox_processed; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX inbox_processed ON invoicing.inbox USING btree (processed_at);

--
-- Name: invoice_lines_invoice_id_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoice_lines_invoice_id_id_index ON invoicing.invoice_lines USING btree (invoice_id, id);

--
-- Name: invoices_credits_invoice; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_credits_invoice ON invoicing.invoices USING btree (credits_invoice_id) WHERE (credits_invoice_id IS NOT NULL);

--
-- Name: invoices_org_converted_quotation; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX invoices_org_converted_quotation ON invoicing.invoices USING btree (org_id, converted_from_quotation_id) WHERE (converted_from_quotation_id IS NOT NULL);

--
-- Name: invoices_org_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_org_date ON invoicing.invoices USING btree (org_id, invoicedatetime DESC, id DESC);

--
-- Name: invoices_org_number; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX invoices_org_number ON invoicing.invoices USING btree (org_id, invoicenumber);

--
-- Name: invoices_org_partner_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_org_partner_date ON invoicing.invoices USING btree (org_id, partner_id, invoicedatetime);

--
-- Name: invoices_org_partner_written_off; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_org_partner_written_off ON invoicing.invoices USING btree (org_id, partner_id) WHERE (write_off_journal_entry_id IS NOT NULL);

--
-- Name: invoices_org_payment_reference; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX invoices_org_payment_reference ON invoicing.invoices USING btree (org_id, payment_reference) WHERE (payment_reference IS NOT NULL);

--
-- Name: invoices_parent_run; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX invoices_parent_run ON invoicing.invoices USING btree (parent_id, run_date) WHERE (parent_id IS NOT NULL);

--
-- Name: invoices_partner_committed_out; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_partner_committed_out ON invoicing.invoices USING btree (org_id, partner_id) WHERE ((converted_from_quotation_id IS NOT NULL) AND ((invoicetype)::text = 'invoiceout'::text) AND ((invoicestatus)::text = ANY ((ARRAY['draft'::character varying, 'proforma'::character varying])::text[])));

--
-- Name: invoices_partner_open; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_partner_open ON invoicing.invoices USING btree (org_id, partner_id) WHERE ((invoicestatus)::text = 'open'::text);

--
-- Name: invoices_recurring_due; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX invoices_recurring_due ON invoicing.invoices USING btree (recurring_next_run_date) WHERE (recurring_enabled AND ((recurring_status)::text = 'active'::text));

--
-- Name: journal_entries_invoice_id_kind_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX journal_entries_invoice_id_kind_index ON invoicing.journal_entries USING btree (invoice_id, kind);

--
-- Name: journal_entries_org_kind_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX journal_entries_org_kind_date ON invoicing.journal_entries USING btree (org_id, kind, journaldate);

--
-- Name: journal_entries_payment; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX journal_entries_payment ON invoicing.journal_entries USING btree (payment_id) WHERE (payment_id IS NOT NULL);

--
-- Name: journal_lines_entry_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX journal_lines_entry_id_index ON invoicing.journal_lines USING btree (entry_id);

--
-- Name: outbox_published; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX outbox_published ON invoicing.outbox USING btree (published_at) WHERE (published_at IS NOT NULL);

--
-- Name: outbox_unpublished; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX outbox_unpublished ON invoicing.outbox USING btree (id) WHERE (published_at IS NULL);

--
-- Name: payment_allocations_credit_note_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_allocations_credit_note_id_index ON invoicing.payment_allocations USING btree (credit_note_id);

--
-- Name: payment_allocations_invoice_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_allocations_invoice_id_index ON invoicing.payment_allocations USING btree (invoice_id);

--
-- Name: payment_allocations_org_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_allocations_org_date ON invoicing.payment_allocations USING btree (org_id, allocation_date);

--
-- Name: payment_allocations_org_operation; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX payment_allocations_org_operation ON invoicing.payment_allocations USING btree (org_id, operation_key, seq) WHERE (operation_key IS NOT NULL);

--
-- Name: payment_allocations_org_partner_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_allocations_org_partner_date ON invoicing.payment_allocations USING btree (org_id, partner_id, allocation_date);

--
-- Name: payment_allocations_payment_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_allocations_payment_id_index ON invoicing.payment_allocations USING btree (payment_id);

--
-- Name: payment_allocations_settles_credited; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX payment_allocations_settles_credited ON invoicing.payment_allocations USING btree (credit_note_id) WHERE settles_credited;

--
-- Name: payment_file_bills_file_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_file_bills_file_id_index ON invoicing.payment_file_bills USING btree (file_id);

--
-- Name: payment_file_bills_open; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX payment_file_bills_open ON invoicing.payment_file_bills USING btree (org_id, invoice_id) WHERE ((status)::text = 'in_payment'::text);

--
-- Name: payment_refunds_credit_note_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_refunds_credit_note_id_index ON invoicing.payment_refunds USING btree (credit_note_id);

--
-- Name: payment_refunds_org_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_refunds_org_date ON invoicing.payment_refunds USING btree (org_id, refund_date);

--
-- Name: payment_refunds_org_operation; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX payment_refunds_org_operation ON invoicing.payment_refunds USING btree (org_id, operation_key) WHERE (operation_key IS NOT NULL);

--
-- Name: payment_refunds_org_partner_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_refunds_org_partner_date ON invoicing.payment_refunds USING btree (org_id, partner_id, refund_date);

--
-- Name: payment_refunds_payment_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payment_refunds_payment_id_index ON invoicing.payment_refunds USING btree (payment_id);

--
-- Name: payments_invoice_id_index; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_invoice_id_index ON invoicing.payments USING btree (invoice_id);

--
-- Name: payments_org_credit_left; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_org_credit_left ON invoicing.payments USING btree (org_id) WHERE (((status)::text = 'posted'::text) AND (amount > (allocated + refunded)));

--
-- Name: payments_org_operation; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX payments_org_operation ON invoicing.payments USING btree (org_id, operation_key) WHERE (operation_key IS NOT NULL);

--
-- Name: payments_org_partner; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_org_partner ON invoicing.payments USING btree (org_id, partner_id, id DESC);

--
-- Name: payments_org_partner_date; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_org_partner_date ON invoicing.payments USING btree (org_id, partner_id, payment_date);

--
-- Name: payments_org_partner_voided; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_org_partner_voided ON invoicing.payments USING btree (org_id, partner_id) WHERE ((status)::text = 'voided'::text);

--
-- Name: payments_org_voided; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE INDEX payments_org_voided ON invoicing.payments USING btree (org_id) WHERE ((status)::text = 'voided'::text);

--
-- Name: vat_daily_totals_key; Type: INDEX; Schema: invoicing; Owner: -
--

CREATE UNIQUE INDEX vat_daily_totals_key ON invoicing.vat_daily_totals USING btree (org_id, day, invoicetype, account, tax_category, tax_rate) NULLS NOT DISTINCT;

--
-- Name: invoices invoices_version; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER invoices_version BEFORE INSERT OR UPDATE ON invoicing.invoices FOR EACH ROW EXECUTE FUNCTION invoicing.invoice_version();

--
-- Name: journal_lines journal_lines_vat_daily_totals; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER journal_lines_vat_daily_totals AFTER INSERT ON invoicing.journal_lines REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION invoicing.vat_daily_totals_add();

--
-- Name: payment_allocations payment_allocations_partner; Type: TRIGGER; Schema: invoicing; Owner: -
--

CREATE TRIGGER payment_allocations_partner BEFORE INSERT OR UPDATE OF invoice_id ON invoicing.payment_allocations FOR EACH ROW EXECUTE FUNCTION invoicing.payment_allocations_partner();

--
-- Name: bank_lines bank_lines_statement_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_lines
    ADD CONSTRAINT bank_lines_statement_id_foreign FOREIGN KEY (statement_id) REFERENCES invoicing.bank_statements(id);

--
-- Name: bank_reconciliations bank_reconciliations_journal_entry_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_reconciliations
    ADD CONSTRAINT bank_reconciliations_journal_entry_id_foreign FOREIGN KEY (journal_entry_id) REFERENCES invoicing.journal_entries(id);

--
-- Name: bank_reconciliations bank_reconciliations_line_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_reconciliations
    ADD CONSTRAINT bank_reconciliations_line_id_foreign FOREIGN KEY (line_id) REFERENCES invoicing.bank_lines(id);

--
-- Name: bank_reconciliations bank_reconciliations_payment_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.bank_reconciliations
    ADD CONSTRAINT bank_reconciliations_payment_id_foreign FOREIGN KEY (payment_id) REFERENCES invoicing.payments(id);

--
-- Name: dunning_letters dunning_letters_fee_invoice_id_fkey; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_letters
    ADD CONSTRAINT dunning_letters_fee_invoice_id_fkey FOREIGN KEY (fee_invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: dunning_letters dunning_letters_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.dunning_letters
    ADD CONSTRAINT dunning_letters_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: inbound_documents inbound_documents_invoice_id_fkey; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.inbound_documents
    ADD CONSTRAINT inbound_documents_invoice_id_fkey FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: invoice_lines invoice_lines_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoice_lines
    ADD CONSTRAINT invoice_lines_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: invoices invoices_credits_invoice_id_fkey; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_credits_invoice_id_fkey FOREIGN KEY (credits_invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: invoices invoices_parent_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.invoices
    ADD CONSTRAINT invoices_parent_id_foreign FOREIGN KEY (parent_id) REFERENCES invoicing.invoices(id);

--
-- Name: issued_files issued_files_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.issued_files
    ADD CONSTRAINT issued_files_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: journal_entries journal_entries_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_entries
    ADD CONSTRAINT journal_entries_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: journal_entries journal_entries_payment_id_fkey; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_entries
    ADD CONSTRAINT journal_entries_payment_id_fkey FOREIGN KEY (payment_id) REFERENCES invoicing.payments(id);

--
-- Name: journal_lines journal_lines_entry_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.journal_lines
    ADD CONSTRAINT journal_lines_entry_id_foreign FOREIGN KEY (entry_id) REFERENCES invoicing.journal_entries(id);

--
-- Name: payment_allocations payment_allocations_credit_note_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations
    ADD CONSTRAINT payment_allocations_credit_note_id_foreign FOREIGN KEY (credit_note_id) REFERENCES invoicing.invoices(id);

--
-- Name: payment_allocations payment_allocations_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations
    ADD CONSTRAINT payment_allocations_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: payment_allocations payment_allocations_journal_entry_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations
    ADD CONSTRAINT payment_allocations_journal_entry_id_foreign FOREIGN KEY (journal_entry_id) REFERENCES invoicing.journal_entries(id);

--
-- Name: payment_allocations payment_allocations_payment_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_allocations
    ADD CONSTRAINT payment_allocations_payment_id_foreign FOREIGN KEY (payment_id) REFERENCES invoicing.payments(id);

--
-- Name: payment_file_bills payment_file_bills_file_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills
    ADD CONSTRAINT payment_file_bills_file_id_foreign FOREIGN KEY (file_id) REFERENCES invoicing.payment_files(id);

--
-- Name: payment_file_bills payment_file_bills_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills
    ADD CONSTRAINT payment_file_bills_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: payment_file_bills payment_file_bills_line_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_file_bills
    ADD CONSTRAINT payment_file_bills_line_id_foreign FOREIGN KEY (line_id) REFERENCES invoicing.bank_lines(id);

--
-- Name: payment_refunds payment_refunds_credit_note_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_refunds
    ADD CONSTRAINT payment_refunds_credit_note_id_foreign FOREIGN KEY (credit_note_id) REFERENCES invoicing.invoices(id);

--
-- Name: payment_refunds payment_refunds_journal_entry_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_refunds
    ADD CONSTRAINT payment_refunds_journal_entry_id_foreign FOREIGN KEY (journal_entry_id) REFERENCES invoicing.journal_entries(id);

--
-- Name: payment_refunds payment_refunds_payment_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payment_refunds
    ADD CONSTRAINT payment_refunds_payment_id_foreign FOREIGN KEY (payment_id) REFERENCES invoicing.payments(id);

--
-- Name: payments payments_invoice_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payments
    ADD CONSTRAINT payments_invoice_id_foreign FOREIGN KEY (invoice_id) REFERENCES invoicing.invoices(id);

--
-- Name: payments payments_journal_entry_id_foreign; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payments
    ADD CONSTRAINT payments_journal_entry_id_foreign FOREIGN KEY (journal_entry_id) REFERENCES invoicing.journal_entries(id);

--
-- Name: payments payments_void_journal_entry_id_fkey; Type: FK CONSTRAINT; Schema: invoicing; Owner: -
--

ALTER TABLE ONLY invoicing.payments
    ADD CONSTRAINT payments_void_journal_entry_id_fkey FOREIGN KEY (void_journal_entry_id) REFERENCES invoicing.journal_entries(id);

--
-- PostgreSQL database dump complete
--
