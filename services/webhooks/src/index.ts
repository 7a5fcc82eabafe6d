export { webhooksService } from './service';
export { reconcileRoutes } from './delivery/routes';
export { matchesAnySql } from './domain/patterns';
export { SecretBox } from './domain/secret-box';
export { rekey } from './key/rekey';
export { DEVELOPMENT_SECRET_KEYS, inDevelopmentMode, parseSealingKeys } from './settings';
