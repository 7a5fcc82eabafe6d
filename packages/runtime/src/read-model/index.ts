export * from './versioned';
