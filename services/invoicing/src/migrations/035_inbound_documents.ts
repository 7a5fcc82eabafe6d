import type { Migration } from '@bo/runtime';

export const migration: Migration = {
  // Received e-invoices (docs/inbound.md): the original kept byte for byte with its SHA-256 for as
  // long as the bill exists (never updated), what was read of it, the rules' report and the review
  // reasons. The same bytes twice are one import (org, sha256); the same supplier, number and issue
  // date twice is a duplicate (org, supplier_key, invoice_number, issue_date). The supplier key is
  // the seller's VAT id, else its endpoint, normalized as the supplier match compares them.
  name: '035_inbound_documents',
  async up(trx, schema) {
    const q = `"${schema.replace(/"/g, '""')}"`;
    await trx.raw(
      `create table ${q}.inbound_documents (
           id serial primary key,
           org_id integer not null,
           status varchar(16) not null check (status in ('bill_created', 'needs_review', 'rejected')),
           syntax varchar(8) not null check (syntax in ('ubl', 'cii', 'facturx')),
           original bytea not null,
           sha256 char(64) not null,
           content_type varchar(100) not null,
           filename varchar(255),
           supplier_key varchar(200),
           partner_id integer,
           invoice_number varchar(200),
           issue_date date,
           summary jsonb not null,
           validation jsonb not null,
           review_reasons jsonb not null default '[]',
           rejection_reason text,
           invoice_id integer references ${q}.invoices (id),
           received_at timestamptz not null default now(),
           updated_at timestamptz not null default now())`,
    );
    await trx.raw(`create unique index inbound_documents_org_sha256 on ${q}.inbound_documents (org_id, sha256)`);
    await trx.raw(
      `create unique index inbound_documents_org_supplier_number on ${q}.inbound_documents
           (org_id, supplier_key, invoice_number, issue_date) where supplier_key is not null and invoice_number is not null and issue_date is not null`,
    );
    await trx.raw(`create index inbound_documents_org_status on ${q}.inbound_documents (org_id, status, id desc)`);
    // A supplier's product keys (seller:<BT-155>, standard:<scheme>:<BT-157>) to our products; accept extends it.
    await trx.raw(
      `create table ${q}.inbound_product_map (
           org_id integer not null,
           partner_id integer not null,
           product_key varchar(300) not null,
           product_id integer not null,
           created_at timestamptz not null default now(),
           primary key (org_id, partner_id, product_key))`,
    );
  },
};
