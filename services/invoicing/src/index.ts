export { invoicingService } from './service';
