import * as log from './logger';
import { warn } from './logger';

export class Syncer {
  constructor(private remote: string) {}

  pull(branch: string, commits: number): void {
    log.info(`pulling ${branch} from ${this.remote}`);
    log.info('fetched %d commits', commits);
    if (commits === 0) {
      warn(`nothing to merge on ${branch}`);
    }
  }

  push(branch: string, ok: boolean): void {
    if (!ok) {
      log.error(`push of ${branch} rejected`, new Error('non-fast-forward'));
      return;
    }
    log.info('pushed ' + branch + ' to ' + this.remote);
  }
}
