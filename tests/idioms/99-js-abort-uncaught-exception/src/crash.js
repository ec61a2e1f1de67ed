'use strict';

// Last-resort logging of what nothing else caught; the process keeps serving.
function installCrashHandlers(service) {
  process.on('uncaughtException', (err, origin) => {
    console.error(`[${service}] ${origin}: ${err.name}: ${err.message}`);
  });
  process.on('unhandledRejection', (reason) => {
    console.error(`[${service}] unhandled rejection: ${reason instanceof Error ? reason.message : String(reason)}`);
  });
}

module.exports = { installCrashHandlers };
