import log from '../log';

const dbLog = log.scope('db');

export function connect(host: string, retries: number): boolean {
  dbLog.info(`connecting to ${host}`);
  for (let i = 1; i < retries; i++) dbLog.warn(`attempt ${i} to reach ${host} timed out`);
  if (retries > 3) {
    dbLog.error(`giving up on ${host} after ${retries} attempts`);
    return false;
  }
  dbLog.debug('pool size ' + retries * 4);
  return true;
}
