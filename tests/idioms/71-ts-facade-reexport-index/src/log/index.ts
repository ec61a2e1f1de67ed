import { Logger } from './logger';

export { Logger } from './logger';
export type { Level } from './logger';
export const log = new Logger('app');
export default log;
