import { runServiceMain } from '@bo/runtime';
import { webhooksService } from './service';

void runServiceMain(webhooksService);
