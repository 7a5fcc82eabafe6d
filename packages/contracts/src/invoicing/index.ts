// Invoicing contracts (spec 2.7, 4.4). The events are consumed by the partners ledger: keep them stable.
export * from './schemas';
export * from './operations';
export * from './events';
export * from './render';
export * from './payments';
export * from './exchange-rates';
export * from './reports';
export * from './books';
export * from './bank';
export * from './inbound';
export * from './dunning';
