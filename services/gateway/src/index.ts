export * from './config';
export * from './gateway';
export * from './migrations';
export { createGatewayApp } from './http/app';
export { createApiKey, revokeApiKey, hashKey } from './api-keys/api-keys';
