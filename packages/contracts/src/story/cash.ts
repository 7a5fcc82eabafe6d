import { step, type ExampleStep, type Scene } from './scene';

/** Cash: the partner's balance, payments made, allocated, refunded and voided, a write-off, and the partner deleted at last. */
export function cashChapter({ today, writer, reader, allocation2, allocation3, refund1, payment2 }: Scene): ExampleStep[] {
  return [
    step(
      'partners.partner.balance',
      { ...reader, partner_id: 1, include_transactions: true },
      {
        message: 'Partner balance retrieved successfully',
        partner: {
          id: 1,
          partnername: 'Acme Supplies',
          display_name: 'Acme',
          email: 'billing@acme.example',
          phone: '+353 21 555 0100',
          balance: 53.32,
          receivable: 53.32,
          committed: 0,
          credit_limit: 5000,
          available_credit: 4946.68,
          exposure: 53.32,
          currency: 'EUR',
          balances: [{ currency: 'EUR', balance: 53.32, receivable: 53.32, committed: 0 }],
        },
        transactions: [
          { id: 1, type: 'invoice', document_number: 'INV-00002', date: `${today}`, amount: 103.32, paid: 50, due: 53.32 },
          { id: 2, type: 'payment', document_number: 'INV-00002', date: `${today}`, amount: 50, paid: 50, due: 0 },
        ],
      },
    ),
    step(
      'invoicing.payment.create',
      {
        ...writer,
        action: 'create',
        partner: 1,
        amount: 60,
        currency: 'EUR',
        payment_date: today,
        method: 'bank_transfer',
        reference: 'TRF-2041',
        direction: 'in',
        allocations: [{ invoice_id: 2, amount: 40 }],
      },
      {
        message: 'Payment recorded and allocated to 1 document(s)',
        payment: payment2({ allocated: 40, refunded: 0, unallocated: 20, allocations: [allocation2], refunds: [] }),
        invoices: [
          {
            id: 2,
            invoicenumber: 'INV-00002',
            invoicetype: 'invoiceout',
            invoicestatus: 'open',
            invoicetotal: 103.32,
            amount_paid: 90,
            due_amount: 13.32,
          },
        ],
      },
    ),
    step(
      'invoicing.payment.allocate',
      { ...writer, action: 'allocate', payment_id: 2, allocations: [{ invoice_id: 2, amount: '13.32' }] },
      {
        message: 'Allocated 13.32 to 1 document(s)',
        allocations: [allocation3],
        payment: payment2({ allocated: 53.32, refunded: 0, unallocated: 6.68, allocations: [allocation2, allocation3], refunds: [] }),
        invoices: [
          {
            id: 2,
            invoicenumber: 'INV-00002',
            invoicetype: 'invoiceout',
            invoicestatus: 'paid',
            invoicetotal: 103.32,
            amount_paid: 103.32,
            due_amount: 0,
          },
        ],
      },
    ),
    step(
      'invoicing.payment.refund',
      { ...writer, action: 'refund', payment_id: 2, amount: '6.68', method: 'bank_transfer', reference: 'Overpayment TRF-2041' },
      {
        message: 'Refunded 6.68',
        refund: refund1,
        payment: payment2({
          allocated: 53.32,
          refunded: 6.68,
          unallocated: 0,
          allocations: [allocation2, allocation3],
          refunds: [refund1],
        }),
      },
    ),
    step(
      'invoicing.payment.get',
      { ...reader, action: 'get', payment_id: 2 },
      {
        message: 'Payment retrieved successfully',
        payment: payment2({
          allocated: 53.32,
          refunded: 6.68,
          unallocated: 0,
          allocations: [allocation2, allocation3],
          refunds: [refund1],
        }),
      },
    ),
    step(
      'invoicing.payment.void',
      { ...writer, action: 'void', payment_id: 1, reason: 'Cheque bounced', void_date: today },
      {
        message: 'Payment 1 voided',
        payment: {
          id: 1,
          partner: 1,
          direction: 'in',
          amount: 50,
          currency: 'EUR',
          payment_date: `${today}`,
          method: null,
          reference: null,
          journal: 'Bank',
          status: 'voided',
          exchange_rate: null,
          accounting_amount: 50,
          allocated: 0,
          refunded: 0,
          unallocated: 0,
          journal_entry_id: 2,
          void_journal_entry_id: 6,
          void_reason: 'Cheque bounced',
          voided_at: `${today}T10:00:00`,
          allocations: [
            {
              id: 1,
              source: 'payment',
              payment_id: 1,
              credit_note_id: null,
              invoice_id: 2,
              invoicenumber: 'INV-00002',
              amount: 50,
              allocation_date: `${today}`,
              status: 'voided',
              journal_entry_id: 2,
            },
          ],
          refunds: [],
          created_at: `${today}T10:00:00`,
        },
        invoices: [
          {
            id: 2,
            invoicenumber: 'INV-00002',
            invoicetype: 'invoiceout',
            invoicestatus: 'open',
            invoicetotal: 103.32,
            amount_paid: 53.32,
            due_amount: 50,
          },
        ],
      },
    ),
    step(
      'invoicing.payment.list',
      { ...reader, action: 'list', partner: 1, status: 'posted' },
      {
        message: 'Payments retrieved successfully',
        payments: [
          payment2({ allocated: 53.32, refunded: 6.68, unallocated: 0, allocations: [allocation2, allocation3], refunds: [refund1] }),
        ],
        pagination: { page_number: 1, page_size: 25, total_items: 1, total_pages: 1, has_next: false, has_previous: false },
      },
    ),
    step(
      'invoicing.invoice.write_off',
      { ...writer, id: 2, write_off: true, reason: 'Customer insolvent', write_off_date: today },
      {
        message: 'Invoice INV-00002 written off: 50.00',
        invoice: {
          id: 2,
          invoicenumber: 'INV-00002',
          invoicetype: 'invoiceout',
          invoicestatus: 'written_off',
          invoicetotal: 103.32,
          amount_paid: 53.32,
          due_amount: 0,
          written_off_amount: 50,
          journal_entry_id: 7,
        },
      },
    ),
    step('partners.partner.delete', { ...writer, action: 'delete', partner_id: 2 }, { message: 'Partner deleted successfully' }),
  ];
}
