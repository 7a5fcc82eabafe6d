/**
 * The floor's tables and statements: a handful of columns per table, shaped roughly as the real
 * services' (partners, invoicing, catalog, sales each in its schema with an outbox and an inbox),
 * and every request's work in as few statements as SQL allows. Each statement runs alone, so it is
 * its own (autocommitted, durable) transaction.
 */

const outboxAndInbox = (schema: string) => `
create table ${schema}.outbox (
  id bigserial primary key, event_id uuid not null unique, type text not null, org_id integer not null,
  envelope jsonb not null, created_at timestamptz not null default now(), published_at timestamptz,
  attempts integer not null default 0, last_error text
);
create index on ${schema}.outbox (id) where published_at is null;
create table ${schema}.inbox (
  consumer text not null, event_id uuid not null, type text not null, processed_at timestamptz not null default now(),
  primary key (consumer, event_id)
);
create index on ${schema}.inbox (processed_at);`;

/** The operation keys a service's writes record with their replies (used by the floor with the bar's requirements). */
const operationKeys = (schema: string) => `
create table ${schema}.operation_keys (
  org_id integer not null, key uuid not null, reply text not null, created_at timestamptz not null default now(),
  primary key (org_id, key)
);`;

/**
 * A write's statement that also records its operation key with its reply, in the same statement, as
 * the bar requires of every write (each effect once by a natural key; a replay answered the recorded
 * reply): its outbox insert becomes a CTE and the key's row is written beside it. The key and the
 * reply are two more parameters, after the statement's own `params`. A repeated key fails the
 * statement on the key's primary key, and nothing of it stays.
 */
export function keyed(statement: string, schema: string, params: number): string {
  const outbox = `\ninsert into ${schema}.outbox`;
  const at = statement.lastIndexOf(outbox);
  if (at < 0 || !statement.trimEnd().endsWith('returning envelope::text'))
    throw new Error(`not a floor write of ${schema}: ${statement.slice(0, 60)}`);
  const head = statement.slice(0, at);
  const insert = statement
    .slice(at + 1)
    .trimEnd()
    .replace(/returning envelope::text$/, 'returning org_id, envelope::text as envelope');
  return `${head},
ob as (
${insert}
), k as (
  insert into ${schema}.operation_keys (org_id, key, reply) select org_id, $${params + 1}::uuid, $${params + 2} from ob
)
select envelope from ob`;
}

/** The reply recorded with an operation key (params: org, key). */
export const recordedReply = (schema: string) => `select reply from ${schema}.operation_keys where org_id = $1 and key = $2::uuid`;

/** Marks published the outbox rows whose events the broker confirmed (params: event ids). */
export const markPublished = (schema: string) =>
  `update ${schema}.outbox set published_at = now() where event_id = any($1::uuid[]) and published_at is null`;

const partnerDirectory = (schema: string) => `
create table ${schema}.partner_directory (
  org_id integer not null, partner_id integer not null, partnername varchar(200) not null, display_name varchar(200) not null,
  partner_type varchar(16) not null, currency varchar(3), deleted boolean not null default false, version integer not null,
  updated_at timestamptz not null default now(), primary key (org_id, partner_id)
);`;

/**
 * A partner's record as the partners service answers it, as JSON text (one field per entry), from
 * the row a trigger is writing: the column that keeps it (`record_json`) is written before every
 * insert and update, as the service's table has it.
 */
const PARTNER_JSON = [
  ['id', 'new.id::text'],
  ['orgid', 'new.org_id::text'],
  ...['partnername', 'display_name', 'partner_type'].map((c) => [c, `to_json(new.${c})::text`]),
  ...['email', 'phone', 'address', 'address_line1', 'address_line2', 'city', 'postal_code', 'region', 'country', 'tax_number'].map((c) => [
    c,
    `coalesce(to_json(new.${c})::text, 'null')`,
  ]),
  ...['credit_limit', 'balance', 'committed'].map((c) => [c, `trim_scale(new.${c})::text`]),
  ...['currency', 'payment_terms', 'contact_person', 'notes', 'peppol_id'].map((c) => [c, `coalesce(to_json(new.${c})::text, 'null')`]),
  ['bank_accounts', 'new.bank_accounts::text'],
  ['dunning_blocked', 'new.dunning_blocked::text'],
  ['version', 'new.version::text'],
  ...['created_at', 'updated_at'].map((c) => [c, `to_json(date_trunc('second', new.${c} at time zone 'UTC'))::text`]),
]
  .map(([field, value], i) => `'${i ? ',' : '{'}"${field}":' || ${value}`)
  .join(' || ');

export const SCHEMA = `
create schema partners;
create schema invoicing;
create schema catalog;
create schema sales;
${operationKeys('partners')}
${operationKeys('invoicing')}
${outboxAndInbox('partners')}
${outboxAndInbox('invoicing')}
${outboxAndInbox('catalog')}
${outboxAndInbox('sales')}
create table partners.partners (
  id serial primary key, org_id integer not null, partnername varchar(200) not null, display_name varchar(200) not null,
  partner_type varchar(16) not null check (partner_type in ('customer','vendor','both')), email varchar(254), phone varchar(50),
  address text, address_line1 varchar(200), address_line2 varchar(200), city varchar(100), postal_code varchar(20), region varchar(100),
  country varchar(2), tax_number varchar(50), credit_limit numeric(18,2) not null default 0, balance numeric(18,2) not null default 0,
  committed numeric(18,2) not null default 0, currency varchar(3), payment_terms text, contact_person varchar(200), notes text,
  peppol_id varchar(64), bank_accounts json not null default '[]', dunning_blocked boolean not null default false,
  version integer not null default 1, created_by varchar(64), updated_by varchar(64),
  created_at timestamptz not null default now(), updated_at timestamptz not null default now(), deleted_at timestamptz
);
create index partners_org_live on partners.partners (org_id, id desc) where deleted_at is null;
alter table partners.partners add column record_json text not null;
create function partners.partners_record_json() returns trigger language plpgsql as $$
  begin new.record_json := ${PARTNER_JSON} || '}'; return new; end $$;
create trigger record_json before insert or update on partners.partners for each row execute function partners.partners_record_json();
create table partners.partner_transactions (
  id bigserial primary key, org_id integer not null, partner_id integer not null references partners.partners (id),
  type varchar(20) not null, source varchar(20) not null, source_id integer not null, invoice_id integer not null,
  document_number varchar(64) not null, date date not null, amount numeric(18,2) not null, balance_effect numeric(18,2) not null,
  created_at timestamptz not null default now(), unique (org_id, source, source_id, type)
);
${partnerDirectory('invoicing')}
${partnerDirectory('sales')}
create table invoicing.invoices (
  id serial primary key, org_id integer not null, partner_id integer not null, invoicetype varchar(20) not null,
  invoicestatus varchar(20) not null, invoicenumber varchar(64), invoicedatetime timestamptz not null, invoicedue date,
  subtotal numeric(18,2) not null, tax_amount numeric(18,2) not null, invoicetotal numeric(18,2) not null,
  amount_paid numeric(18,2) not null default 0, validated_at timestamptz, created_by varchar(64),
  created_at timestamptz not null default now(), updated_at timestamptz not null default now()
);
create index on invoicing.invoices (org_id, partner_id, invoicestatus);
create unique index on invoicing.invoices (org_id, invoicenumber);
create table invoicing.invoice_lines (
  id serial primary key, invoice_id integer not null references invoicing.invoices (id), org_id integer not null,
  product_id integer, product_name varchar(200) not null, quantity numeric(18,4) not null, price numeric(18,4) not null,
  discount numeric(7,4) not null default 0, tax_rate numeric(7,4) not null default 0, tax_included boolean not null default false,
  subtotal numeric(18,2) not null, tax numeric(18,2) not null, total numeric(18,2) not null, catalog_checked boolean not null default false
);
create index on invoicing.invoice_lines (invoice_id);
create table invoicing.document_sequences (
  org_id integer not null, series varchar(20) not null, last_value bigint not null, primary key (org_id, series)
);
create table invoicing.journal_entries (
  id serial primary key, org_id integer not null, invoice_id integer references invoicing.invoices (id), kind varchar(20) not null,
  journalname varchar(50) not null, journaldate date not null, reference varchar(64), created_at timestamptz not null default now()
);
create table invoicing.journal_lines (
  id serial primary key, entry_id integer not null references invoicing.journal_entries (id), account varchar(50) not null,
  debit numeric(18,2) not null default 0, credit numeric(18,2) not null default 0
);
create table catalog.products (
  id serial primary key, org_id integer not null, name varchar(200) not null, type varchar(20) not null, sku varchar(64),
  price numeric(18,4) not null default 0, cost numeric(18,4) not null default 0, deleted_at timestamptz
);
create table catalog.stock_moves (
  id bigserial primary key, org_id integer not null, product_id integer not null references catalog.products (id),
  quantity numeric(18,4) not null, reference varchar(64) not null, created_at timestamptz not null default now()
);
`;

/**
 * What every floor scenario needs (params: org, the catalog products the bench's lines name, the
 * partners to make): customers as the bench's fixtures seed them, with their copies in the two
 * partner read models; the lines' products (services, as the bench's); the invoice number series.
 */
export const SEED = `
with p as (
  insert into partners.partners (org_id, partnername, display_name, partner_type, email, phone, currency, created_by, updated_by)
  select $1, 'Seed ' || g, 'Seed ' || g, 'customer', 'seed' || g || '@example.com', '+1 555 0100', 'USD', 'bench', 'bench'
  from generate_series(0, $3::int - 1) g order by g
  returning id, org_id, partnername, display_name, partner_type, currency, version
), s as (
  insert into sales.partner_directory (org_id, partner_id, partnername, display_name, partner_type, currency, version)
  select org_id, id, partnername, display_name, partner_type, currency, version from p
), i as (
  insert into invoicing.partner_directory (org_id, partner_id, partnername, display_name, partner_type, currency, version)
  select org_id, id, partnername, display_name, partner_type, currency, version from p
), c as (
  insert into catalog.products (id, org_id, name, type) select id, $1, 'Product ' || id, 'service' from unnest($2::int[]) id
), n as (
  insert into invoicing.document_sequences (org_id, series, last_value) values ($1, 'invoice', 0)
)
select id from p order by id`;

/** After SEED: the products' own sequence past the ids given. */
export const SEED_AFTER = `select setval(pg_get_serial_sequence('catalog.products', 'id'), (select max(id) from catalog.products))`;

/**
 * `$2` drafts of three lines each (one per validation), numbered from the series as create invoice
 * numbers them, spread over the seeded partners `$3` (params: org, count, partner ids, product ids).
 */
export const DRAFTS = `
with seq as (
  update invoicing.document_sequences set last_value = last_value + $2::int where org_id = $1 and series = 'invoice'
  returning last_value - $2::int as before
), inv as (
  insert into invoicing.invoices (org_id, partner_id, invoicetype, invoicestatus, invoicenumber, invoicedatetime, invoicedue, subtotal, tax_amount, invoicetotal, created_by)
  select $1, ($3::int[])[1 + g % cardinality($3::int[])], 'invoiceout', 'draft', 'INV-' || lpad((seq.before + g)::text, 6, '0'),
    now(), current_date + 30, 300, 45, 345, 'bench'
  from seq cross join generate_series(1, $2::int) g
  returning id
), li as (
  insert into invoicing.invoice_lines (invoice_id, org_id, product_id, product_name, quantity, price, tax_rate, subtotal, tax, total, catalog_checked)
  select inv.id, $1, p, 'Product ' || p, 1, 100, 15, 100, 15, 115, true from inv cross join unnest($4::int[]) p
)
select id from inv order by id`;

/**
 * The first page of live partners as the JSON records the partners service answers (numbers as
 * numbers, seconds-precision UTC times), kept by PostgreSQL with each row as the service has it keep
 * them, and how many there are, in one round trip (params: org, page size).
 */
export const LIST_PARTNERS = `
select (select count(*) from partners.partners where org_id = $1 and deleted_at is null) as total,
  (select '[' || coalesce(string_agg(r.record_json, ',' order by r.id desc), '') || ']'
   from (select * from partners.partners where org_id = $1 and deleted_at is null order by id desc limit $2) r) as records`;

/**
 * A partner and its `partners.partner.created` event in the outbox, one statement (params: org,
 * name, type, email, phone, credit limit, currency, user, event id). Returns the envelope to publish.
 */
export const CREATE_PARTNER = `
with p as (
  insert into partners.partners (org_id, partnername, display_name, partner_type, email, phone, credit_limit, currency, created_by, updated_by)
  values ($1, $2, $2, $3, $4, $5, $6, $7, $8, $8)
  returning id, org_id, partnername, display_name, partner_type, email, phone, credit_limit, currency, version, created_at
)
insert into partners.outbox (event_id, type, org_id, envelope)
select $9::uuid, 'partners.partner.created', p.org_id,
  jsonb_build_object('id', $9::text, 'type', 'partners.partner.created', 'org_id', p.org_id, 'occurred_at', now(), 'data', to_jsonb(p))
from p
returning envelope::text`;

/** The credit check's read: balance, committed and limit of a live partner (params: org, partner). */
export const PARTNER_CREDIT = `
select id, balance, committed, credit_limit from partners.partners where org_id = $1 and id = $2 and deleted_at is null`;

/** The products a document's lines name (params: org, ids). */
export const PRODUCTS = `
select id, name, type, price from catalog.products where org_id = $1 and id = any($2::int[]) and deleted_at is null`;

/**
 * A draft invoice with its lines and its `invoicing.invoice.created` event, if the partner is live in
 * invoicing's own partner read model: one statement (params: org, partner, type, subtotal, tax,
 * total, user, lines as JSON, event id). The invoice takes the next number of the organization's
 * gapless series, as the real create does (the series' row stays locked until the commit). No row:
 * no such partner.
 */
export const CREATE_INVOICE = `
with pa as (
  select partner_id from invoicing.partner_directory where org_id = $1 and partner_id = $2 and not deleted
), seq as (
  update invoicing.document_sequences set last_value = last_value + 1
  where org_id = $1 and series = 'invoice' and exists (select 1 from pa)
  returning last_value
), inv as (
  insert into invoicing.invoices (org_id, partner_id, invoicetype, invoicestatus, invoicenumber, invoicedatetime, invoicedue, subtotal, tax_amount, invoicetotal, created_by)
  select $1, pa.partner_id, $3, 'draft', 'INV-' || lpad(seq.last_value::text, 6, '0'), now(), current_date + 30, $4, $5, $6, $7 from pa, seq
  returning id, org_id, partner_id, invoicetype, invoicenumber, invoicetotal
), li as (
  insert into invoicing.invoice_lines (invoice_id, org_id, product_id, product_name, quantity, price, discount, tax_rate, tax_included, subtotal, tax, total, catalog_checked)
  select inv.id, $1, l.product_id, l.product_name, l.quantity, l.price, coalesce(l.discount, 0), coalesce(l.tax_rate, 0),
    coalesce(l.tax_included, false), l.subtotal, l.tax, l.total, true
  from inv cross join jsonb_to_recordset($8::jsonb) as l(product_id int, product_name text, quantity numeric, price numeric,
    discount numeric, tax_rate numeric, tax_included boolean, subtotal numeric, tax numeric, total numeric)
  returning id
)
insert into invoicing.outbox (event_id, type, org_id, envelope)
select $9::uuid, 'invoicing.invoice.created', inv.org_id,
  jsonb_build_object('id', $9::text, 'type', 'invoicing.invoice.created', 'org_id', inv.org_id, 'occurred_at', now(),
    'data', jsonb_build_object('invoice_id', inv.id, 'partner_id', inv.partner_id, 'invoicetype', inv.invoicetype,
      'invoicenumber', inv.invoicenumber, 'invoicetotal', inv.invoicetotal, 'lines', (select count(*) from li)))
from inv
returning envelope::text`;

/** What validation reads before asking the partner's credit (unlocked; params: org, invoice). */
export const INVOICE_FOR_VALIDATION = `
select id, partner_id, invoicetype, invoicestatus, invoicetotal from invoicing.invoices where org_id = $1 and id = $2`;

/**
 * Validation, one statement: lock the draft, open it, post the journal entry and its three lines,
 * record `invoicing.invoice.validated` with the lines catalog moves stock by (params: org, invoice,
 * event id). The number was taken at creation, as the real system numbers invoices. No row: not a
 * draft any more.
 */
export const VALIDATE_INVOICE = `
with inv as (
  select id from invoicing.invoices where org_id = $1 and id = $2 and invoicestatus = 'draft' for update
), upd as (
  update invoicing.invoices i
  set invoicestatus = 'open', validated_at = now(), updated_at = now()
  from inv where i.id = inv.id
  returning i.id, i.org_id, i.partner_id, i.invoicenumber, i.invoicetotal, i.subtotal, i.tax_amount
), je as (
  insert into invoicing.journal_entries (org_id, invoice_id, kind, journalname, journaldate, reference)
  select upd.org_id, upd.id, 'invoice', 'Sales', current_date, upd.invoicenumber from upd
  returning id
), jl as (
  insert into invoicing.journal_lines (entry_id, account, debit, credit)
  select je.id, a.account, a.debit, a.credit
  from je, upd, lateral (values ('receivable', upd.invoicetotal, 0::numeric), ('revenue', 0, upd.subtotal), ('tax', 0, upd.tax_amount))
    as a (account, debit, credit)
)
insert into invoicing.outbox (event_id, type, org_id, envelope)
select $3::uuid, 'invoicing.invoice.validated', upd.org_id,
  jsonb_build_object('id', $3::text, 'type', 'invoicing.invoice.validated', 'org_id', upd.org_id, 'occurred_at', now(),
    'data', jsonb_build_object('invoice_id', upd.id, 'partner_id', upd.partner_id, 'invoicenumber', upd.invoicenumber,
      'invoicetotal', upd.invoicetotal, 'journal_entry_id', je.id,
      'lines', (select coalesce(jsonb_agg(jsonb_build_object('line_id', l.id, 'product_id', l.product_id, 'quantity', l.quantity)), '[]'::jsonb)
                from invoicing.invoice_lines l where l.invoice_id = upd.id and l.catalog_checked)))
from upd, je
returning envelope::text`;

/**
 * A partner read model's apply (sales' and invoicing's): the inbox row and the upsert of the
 * partner's copy, newest version winning, one statement (params: consumer, event id, type, org,
 * partner, name, display name, type, currency, version). A redelivered event inserts nothing.
 */
export const applyPartner = (schema: 'sales' | 'invoicing') => `
with ib as (
  insert into ${schema}.inbox (consumer, event_id, type) values ($1, $2, $3) on conflict do nothing returning event_id
)
insert into ${schema}.partner_directory (org_id, partner_id, partnername, display_name, partner_type, currency, version)
select $4, $5, $6, $7, $8, $9, $10 from ib
on conflict (org_id, partner_id) do update
  set partnername = excluded.partnername, display_name = excluded.display_name, partner_type = excluded.partner_type,
      currency = excluded.currency, version = excluded.version, updated_at = now()
  where ${schema}.partner_directory.version < excluded.version`;

/**
 * The partners ledger's apply of a validated sale: inbox row, ledger row, balance update, one
 * statement (params: consumer, event id, type, org, partner, invoice, number, total).
 */
export const APPLY_LEDGER = `
with ib as (
  insert into partners.inbox (consumer, event_id, type) values ($1, $2, $3) on conflict do nothing returning event_id
), tx as (
  insert into partners.partner_transactions (org_id, partner_id, type, source, source_id, invoice_id, document_number, date, amount, balance_effect)
  select $4, $5, 'invoice', 'invoice', $6, $6, $7, current_date, $8, $8 from ib
  returning partner_id
)
update partners.partners p set balance = p.balance + $8, updated_at = now() from tx where p.org_id = $4 and p.id = tx.partner_id`;

/**
 * Catalog's apply of a validated document: inbox row and one stock move per stocked product of its
 * lines (the bench's lines are services: none), one statement (params: consumer, event id, type,
 * org, reference, lines as JSON).
 */
export const APPLY_STOCK = `
with ib as (
  insert into catalog.inbox (consumer, event_id, type) values ($1, $2, $3) on conflict do nothing returning event_id
)
insert into catalog.stock_moves (org_id, product_id, quantity, reference)
select $4, p.id, -l.quantity, $5
from ib cross join jsonb_to_recordset($6::jsonb) as l(product_id int, quantity numeric)
join catalog.products p on p.org_id = $4 and p.id = l.product_id and p.type = 'product'`;
