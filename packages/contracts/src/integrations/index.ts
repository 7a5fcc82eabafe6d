export * from './schemas';
export * from './operations';
export * from './events';
