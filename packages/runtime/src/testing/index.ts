export * from './infra';
export * from './service';
export * from './redelivery';
