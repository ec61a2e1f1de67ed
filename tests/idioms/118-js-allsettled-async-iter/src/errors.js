'use strict';

// "Error: outer <- SyntaxError: inner": an error and its causes on one line.
function describeError(err) {
  const parts = [];
  for (let e = err; e !== undefined; e = e instanceof Error ? e.cause : undefined) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
  return parts.join(' <- ');
}

module.exports = { describeError };
