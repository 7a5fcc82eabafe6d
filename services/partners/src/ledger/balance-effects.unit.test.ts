import { documentEffect, paymentEffect, transactionTypeOf } from './balance-effects';

describe('partner balance effects', () => {
  it('adds a validated sales invoice and subtracts its payments', () => {
    expect(documentEffect('invoiceout', '100.10').toFixed()).toBe('100.1');
    expect(paymentEffect('invoiceout', '40.05').toFixed()).toBe('-40.05');
  });

  it('moves credit notes and vendor documents the other way', () => {
    expect(documentEffect('creditout', '10').toFixed()).toBe('-10');
    expect(documentEffect('invoicein', '10').toFixed()).toBe('-10');
    expect(documentEffect('creditin', '10').toFixed()).toBe('10');
    expect(paymentEffect('invoicein', '10').toFixed()).toBe('10');
    expect(paymentEffect('creditout', '10').toFixed()).toBe('10');
    expect(paymentEffect('creditin', '10').toFixed()).toBe('-10');
  });

  it('names each document type as the balance view lists it', () => {
    expect(transactionTypeOf('invoiceout')).toBe('invoice');
    expect(transactionTypeOf('creditout')).toBe('credit_note');
    expect(transactionTypeOf('invoicein')).toBe('bill');
    expect(transactionTypeOf('creditin')).toBe('vendor_credit');
  });
});
