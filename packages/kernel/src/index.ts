/**
 * The domain kernel: exact money, business dates, the document line and its taxes, as pure functions and types.
 * No database, no bus, no I/O: every other package may import it, and it imports none of them.
 */
export * from './money';
export * from './currency-money';
export * from './time';
export * from './lines';
export * from './tax';
export * from './creditor-reference';
