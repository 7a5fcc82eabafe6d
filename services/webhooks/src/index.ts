export { webhooksService } from './service';
