export * from './infra';
export * from './service';
export * from './redelivery';
export * from './tcp-proxy';
export * from './catalog-stub';
export * from './tracing';
export * from './eventually';
export * from './partner-record';
