import { partners } from '@bo/contracts';
import { handler, recordEvent } from '@bo/runtime';
import { checkCreditLimit } from './credit-limit';
import { structuredAddress, toPartnerRecord, type PartnerRow } from './partner.record';

export const createPartnerHandler = handler(partners.createPartner, async (req, ctx) => {
  return ctx.db.transaction(async (trx) => {
    await checkCreditLimit(trx, ctx.orgId, req.credit_limit, req.currency);
    const [row] = await trx('partners')
      .insert({
        org_id: ctx.orgId,
        partnername: req.partnername,
        display_name: req.display_name?.trim() || req.partnername,
        partner_type: req.partner_type,
        email: req.email || null,
        phone: req.phone ?? null,
        address: req.address ?? null,
        ...structuredAddress(req),
        tax_number: req.tax_number ?? null,
        credit_limit: req.credit_limit ?? '0',
        currency: req.currency ?? null,
        payment_terms: req.payment_terms ?? null,
        contact_person: req.contact_person ?? null,
        notes: req.notes ?? null,
        created_by: ctx.userId ?? null,
        updated_by: ctx.userId ?? null,
      })
      .returning<PartnerRow[]>('*');
    const partner = toPartnerRecord(row as PartnerRow);
    await recordEvent(trx, partners.partnerCreated.type, ctx.orgId, partner);
    return { message: 'Partner created successfully', partner };
  });
});
