export { webhooksService } from './service';
export { reconcileRoutes, routesLockSql } from './delivery/routes';
export { matchesAnySql } from './domain/patterns';
