import { z } from 'zod';
import { baseRequest } from '../fields';
import { defineOperation } from '../operation';
import * as s from './schemas';

/** Beyond its schema's four decimals: those of the currency its balance is kept in. */
const creditLimitRule = {
  field: 'credit_limit',
  rule: "two decimals, or as many as the partner's currency has (else the organization's default_currency): three for KWD or BHD",
} as const;

export const listPartners = defineOperation({
  name: 'partners.partner.list',
  service: 'partners',
  summary: 'List partners, filtered by type and a search over name, email and phone',
  paths: ['/crm/partners'],
  select: { default: true },
  write: false,
  request: s.listPartnersRequest,
  reply: s.listPartnersReply,
});

export const partnerBalance = defineOperation({
  name: 'partners.partner.balance',
  service: 'partners',
  summary: "A partner's balance, credit and, on request, its transactions",
  paths: ['/crm/partners'],
  select: { present: 'partner_id' },
  write: false,
  request: s.partnerBalanceRequest,
  reply: s.partnerBalanceReply,
});

export const createPartner = defineOperation({
  name: 'partners.partner.create',
  service: 'partners',
  summary: 'Create a customer, vendor or both',
  paths: ['/crm/editpatner'],
  select: { action: 'create' },
  write: true,
  request: s.createPartnerRequest,
  reply: s.partnerReply,
  rules: [creditLimitRule],
});

export const editPartner = defineOperation({
  name: 'partners.partner.edit',
  service: 'partners',
  summary: 'Change the fields given of a partner',
  paths: ['/crm/editpatner'],
  select: { action: 'edit' },
  write: true,
  request: s.editPartnerRequest,
  reply: s.partnerReply,
  rules: [creditLimitRule],
});

export const deletePartner = defineOperation({
  name: 'partners.partner.delete',
  service: 'partners',
  summary: 'Soft-delete a partner; its history stays',
  paths: ['/crm/editpatner'],
  select: { action: 'delete' },
  write: true,
  request: s.deletePartnerRequest,
  reply: s.messageReply,
  rules: [{ field: 'partner_id', rule: 'no open quotation or invoice and no active recurring contract names the partner' }],
});

/** Internal: other services look a partner up when their read model has not seen it yet. */
export const getPartner = defineOperation({
  name: 'partners.partner.get',
  service: 'partners',
  summary: 'Internal lookup of one live partner (not routed over HTTP)',
  paths: [],
  select: { default: true },
  write: false,
  request: z.object({ org_id: baseRequest.org_id, partner_id: s.partnerRecord.shape.id }),
  reply: z.object({ message: z.string(), partner: s.partnerRecord }),
});

export const documentParties = defineOperation({
  name: 'partners.document.parties',
  service: 'partners',
  summary: "Internal: a document's two parties and, on request, the partner's credit, in one call (not routed over HTTP)",
  paths: [],
  select: { default: true },
  write: false,
  request: s.documentPartiesRequest,
  reply: s.documentPartiesReply,
});

export const partnersOperations = [listPartners, partnerBalance, createPartner, editPartner, deletePartner, getPartner, documentParties];
