export { partnersService } from './service';
