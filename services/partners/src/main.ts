import { runServiceMain } from '@bo/runtime';
import { partnersService } from './service';

void runServiceMain(partnersService);
