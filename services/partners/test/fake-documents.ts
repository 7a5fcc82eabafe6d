import type { partners, RpcReply } from '@bo/contracts';
import type * as testing from '@bo/testkit';

type OpenDocuments = Omit<partners.OpenDocumentsReply, 'message'>;
const nothing: OpenDocuments = { open_documents: 0, active_contracts: 0, documents: [] };

/**
 * Stands in for the internal `*.partner.open_documents` operations of sales and invoicing that a
 * delete asks; answers nothing open unless told otherwise per (service, org, partner).
 */
export async function fakeDocumentServices(svc: testing.TestService) {
  const answers = new Map<string, OpenDocuments>();
  const asked: string[] = [];
  for (const service of ['sales', 'invoicing'] as const) {
    await svc.client.serve(service, [`${service}.partner.open_documents`], async (_op, payload, meta): Promise<RpcReply> => {
      const key = `${service}:${meta.orgId}:${Number((payload as { partner_id: number }).partner_id)}`;
      asked.push(key);
      return { ok: true, status: 200, body: { message: 'fake', ...(answers.get(key) ?? nothing) } };
    });
  }
  return {
    set: (service: 'sales' | 'invoicing', orgId: number, partnerId: number, open: OpenDocuments) =>
      void answers.set(`${service}:${orgId}:${partnerId}`, open),
    asked: () => [...asked],
  };
}
