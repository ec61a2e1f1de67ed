import { Logger, log } from '../log';
import { connect } from './db';

export function start(env: string, host: string, retries: number): void {
  const boot = new Logger('boot', env === 'prod' ? 'info' : 'debug');
  boot.debug(`environment ${env}`);
  log.info(`starting in ${env}`);
  if (!connect(host, retries)) boot.error('start aborted');
  else log.scope('http').info(`listening for ${env} traffic`);
}
