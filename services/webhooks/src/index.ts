export { webhooksService } from './service';
export { reconcileRoutes, routesLockSql } from './delivery/routes';
