export { salesService } from './service';
