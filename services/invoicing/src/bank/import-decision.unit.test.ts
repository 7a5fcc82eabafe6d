import { dec } from '@bo/kernel';
import { decideImport, type ImportedLine } from './import-decision';
import { creditorReferenceOf, type MatchContext, type MatchLine, type OpenDocument } from './matching';

const doc = (over: Partial<OpenDocument> = {}): OpenDocument => ({
  id: 1,
  invoicenumber: 'INV-00001',
  invoicetype: 'invoiceout',
  partner_id: 7,
  currency: 'EUR',
  due: dec('100'),
  date: '2026-03-01',
  payment_reference: null,
  ...over,
});
const line = (over: Partial<MatchLine> = {}): MatchLine => ({
  amount: dec('100'),
  currency: 'EUR',
  structured_reference: null,
  remittance_text: null,
  end_to_end_id: null,
  counterparty_name: null,
  counterparty_iban: null,
  ...over,
});
const context = (documents: OpenDocument[]): MatchContext => ({ documents, partnersByIban: new Map(), rules: [] });
const ref = creditorReferenceOf('INV-00001');
/** The lines' booking date: after the documents' (2026-03-01) unless a test says otherwise. */
const booked = '2026-03-15';

describe('deciding an import', () => {
  it('given autoreconcile on and an exact RF reference owing at least the line, then the line pays that invoice', () => {
    const [decision] = decideImport(
      [{ line: line({ structured_reference: ref, amount: dec('60') }), date: booked }],
      context([doc()]),
      true,
    );
    expect(decision).toEqual({ kind: 'reconcile', partner: 7, invoice_id: 1, amount: dec('60'), by: 'reference' });
  });

  it('given autoreconcile off, then the same line is only suggested and nothing is reconciled', () => {
    expect(decideImport([{ line: line({ structured_reference: ref }), date: booked }], context([doc()]), false)).toEqual([
      { kind: 'mark', status: 'suggested' },
    ]);
  });

  it('given autoreconcile off, then a debit stating a transfer of a payment file is left to a person (an equal amount alone is no candidate)', () => {
    const bill = doc({ id: 5, invoicetype: 'invoicein', invoicenumber: 'BILL-5', partner_id: 9, due: dec('80') });
    const imported: ImportedLine = {
      line: line({ amount: dec('-80'), end_to_end_id: 'PF1-5' }),
      date: booked,
      transfer: { invoice_id: 5, partner_id: 9 },
    };
    expect(decideImport([imported], context([bill]), false)).toEqual([{ kind: 'mark', status: 'unmatched' }]);
    expect(decideImport([imported], context([bill]), true)).toEqual([
      { kind: 'reconcile', partner: 9, invoice_id: 5, amount: dec('80'), by: 'transfer' },
    ]);
  });

  it('given two lines quoting one reference, then the second is reconciled only for what the first left due', () => {
    const decisions = decideImport(
      [
        { line: line({ structured_reference: ref, amount: dec('70') }), date: booked },
        { line: line({ structured_reference: ref, amount: dec('40') }), date: booked },
      ],
      context([doc()]),
      true,
    );
    expect(decisions.map((d) => d.kind)).toEqual(['reconcile', 'mark']);
    expect(decisions[1]).toEqual({ kind: 'mark', status: 'suggested' });
  });

  it('given a line more than due, then it is suggested; given a line naming nothing, then it is unmatched', () => {
    const decisions = decideImport(
      [
        { line: line({ structured_reference: ref, amount: dec('100.01') }), date: booked },
        { line: line({ amount: dec('3') }), date: booked },
      ],
      context([doc()]),
      true,
    );
    expect(decisions).toEqual([
      { kind: 'mark', status: 'suggested' },
      { kind: 'mark', status: 'unmatched' },
    ]);
  });

  it('given an import, then the context it read is left as it was', () => {
    const documents = [doc()];
    decideImport([{ line: line({ structured_reference: ref }), date: booked }], context(documents), true);
    expect(documents[0]!.due).toEqual(dec('100'));
  });

  it('given a line booked before the document it names, then it is suggested, not reconciled (a payment is never dated before what it pays)', () => {
    const early = { line: line({ structured_reference: ref, amount: dec('60') }), date: '2026-02-28' };
    expect(decideImport([early], context([doc()]), true)).toEqual([{ kind: 'mark', status: 'suggested' }]);
    // Booked on the document's own day, it pays it.
    expect(decideImport([{ ...early, date: '2026-03-01' }], context([doc()]), true)).toEqual([
      { kind: 'reconcile', partner: 7, invoice_id: 1, amount: dec('60'), by: 'reference' },
    ]);
    // A payment file's transfer the same.
    const bill = doc({ id: 5, invoicetype: 'invoicein', invoicenumber: 'BILL-5', partner_id: 9, due: dec('80') });
    const transfer = {
      line: line({ amount: dec('-80'), end_to_end_id: 'PF1-5' }),
      date: '2026-02-01',
      transfer: { invoice_id: 5, partner_id: 9 },
    };
    expect(decideImport([transfer], context([bill]), true)).toEqual([{ kind: 'mark', status: 'unmatched' }]);
  });
});
