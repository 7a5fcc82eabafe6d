import { runServiceMain } from '@bo/runtime';
import { salesService } from './service';

void runServiceMain(salesService);
