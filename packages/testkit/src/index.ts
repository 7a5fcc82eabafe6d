/**
 * The test kit: throwaway databases and vhosts, a service started for a test, redelivery, a TCP
 * proxy for faults, a nameserver a test answers itself, a catalog stub, span collection. Only tests
 * and the lab (tools/) import it; tests/repo/layers.test.ts holds the product to that.
 */
export * from './infra';
export * from './migrations';
export * from './template';
export * from './service';
export * from './redelivery';
export * from './tcp-proxy';
export * from './fake-dns';
export * from './catalog-stub';
export * from './books-stub';
export * from './diverted-events';
export * from './tracing';
export * from './eventually';
export * from './partner-record';
export * from './statements';
export * from './pgbouncer';
