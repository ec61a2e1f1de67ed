'use strict';

class Syncer {
  constructor(logger, remote) {
    this.remote = remote;
    this.root = logger;
    this.log = logger.child({ component: 'sync' });
  }

  run(files) {
    const timer = this.log.startTimer();
    this.log.info('syncing %d files with %s', files.length, this.remote);
    for (const f of files) {
      try {
        this.push(f);
      } catch (err) {
        this.log.error(err);
      }
    }
    timer.done({ message: `sync with ${this.remote} finished` });
    this.root.warn(`remote ${this.remote} has ${files.length > 2 ? 'many' : 'few'} pending changes`);
  }

  push(file) {
    if (file.endsWith('.lock')) throw new Error(`cannot push locked file ${file}`);
    this.log.debug(`pushed ${file}`);
  }
}

module.exports = { Syncer };
