import { runServiceMain } from '@bo/runtime';
import { catalogService } from './service';

void runServiceMain(catalogService);
