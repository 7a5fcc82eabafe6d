export * from './config';
export * from './gateway';
export * from './migrations';
export { createGatewayApp } from './http/app';
export { createApiKey, revokeApiKey, hashKey } from './api-key/api-keys';
export { admissionBound, ratePolicy, type RatePolicy } from './rate-limit/limiter';
export { REPLICA_HEARTBEAT_MS } from './rate-limit/replicas';
