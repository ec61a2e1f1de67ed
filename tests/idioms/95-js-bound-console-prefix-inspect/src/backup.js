'use strict';
const util = require('util');
const { createLogger } = require('./create-logger');

class BackupPlan {
  constructor(name, config, verbose) {
    this.name = name;
    this.config = config;
    this.log = createLogger(`backup:${name}`, { debug: verbose });
    this.log.info('plan loaded with', util.inspect(config, { compact: true, breakLength: Infinity }));
  }

  run(volumes) {
    this.log.debug('volumes:', volumes);
    let bytes = 0;
    for (const v of volumes) {
      if (v.sizeGb > this.config.maxGb) {
        this.log.warn(`volume ${v.name} (${v.sizeGb} GB) over the ${this.config.maxGb} GB cap, skipped`);
        continue;
      }
      bytes += v.sizeGb;
      this.log.info('snapshot of', v.name, 'taken:', util.inspect({ gb: v.sizeGb, tier: this.config.tier }));
    }
    this.log.info(`${this.name}: ${bytes} GB in ${volumes.length} volumes`);
    return bytes;
  }
}

module.exports = { BackupPlan };
