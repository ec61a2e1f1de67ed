'use strict';

class UploadQueue {
  constructor() {
    this.controllers = new Map();
  }

  async upload(name, chunks, { cancelAfter = Infinity } = {}) {
    const controller = new AbortController();
    this.controllers.set(name, controller);
    console.log(`upload ${name} started (${chunks} chunks)`);
    try {
      for (let i = 0; i < chunks; i++) {
        if (i === cancelAfter) this.cancel(name);
        controller.signal.throwIfAborted();
        await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(`upload ${name}: ${chunks} chunks sent`);
    } catch (err) {
      if (err.name === 'AbortError') console.warn(`upload ${name} stopped: ${err.message}`);
      else console.warn(`upload ${name} stopped by ${err.name}: ${err.message}`);
    } finally {
      this.controllers.delete(name);
    }
  }

  cancel(name, why) {
    const controller = this.controllers.get(name);
    if (why) controller.abort(new DOMException(why, 'TimeoutError'));
    else controller.abort();
  }

  scheduleCleanup(name, files) {
    setImmediate(() => {
      if (files > 100) throw new RangeError(`cleanup of ${name} found ${files} stale files`);
      console.log(`cleanup of ${name} removed ${files} files`);
    });
  }

  verify(name) {
    // nobody awaits this promise: a failure reaches the unhandledRejection handler
    Promise.resolve().then(() => {
      throw new Error(`checksum mismatch in ${name}`);
    });
  }
}

module.exports = { UploadQueue };
