export * from './infra';
export * from './service';
