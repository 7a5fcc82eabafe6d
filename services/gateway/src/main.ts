import { runProcess } from '@bo/runtime';
import { gatewayConfigSchema } from './config';
import { startGateway } from './gateway';

void runProcess('gateway', gatewayConfigSchema, (deps) => startGateway(deps));
