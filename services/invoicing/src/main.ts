import { runServiceMain } from '@bo/runtime';
import { invoicingService } from './service';

void runServiceMain(invoicingService);
