'use strict';
const { summary, hints, check } = require('./report');

function publish(build) {
  const text = summary(build);
  console.log(text);
}

function advise(build) {
  for (const h of hints(build)) console.warn(h);
}

function finish(build) {
  if (!check(build)) {
    console.error('build %s not published', build.id);
    return;
  }
  publish(build);
  advise(build);
  console.log('build %s done', build.id);
}

module.exports = { finish };
