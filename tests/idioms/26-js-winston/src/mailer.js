'use strict';

class Mailer {
  constructor(logger) {
    this.logger = logger;
  }

  send(to, subject) {
    this.logger.log({ level: 'info', message: `Sending "${subject}" to ${to}` });
    this.logger.info('queued message for %s', to, { subject });
  }

  bounce(to, code) {
    this.logger.warn('bounce from %s (code %d)', to, code);
    this.logger.log('error', 'giving up on ' + to);
  }

  stats(n) {
    this.logger.debug('mailer stats', { sent: n });
  }
}

module.exports = { Mailer };
