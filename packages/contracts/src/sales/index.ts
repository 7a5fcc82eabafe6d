// Sales contracts (spec 2.6, 3, 4.3): quotations, proformas and estimates.
export * from './schemas';
export * from './operations';
export * from './events';
export * from './render';
