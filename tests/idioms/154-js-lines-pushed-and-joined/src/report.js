'use strict';

// A build's report: the lines are gathered here, and the callers print them.
function summary(build) {
  const lines = [];
  lines.push(`Build ${build.id} finished in ${build.seconds}s`);
  if (build.failed.length) lines.push('Failed targets: ' + build.failed.join(', '));
  for (const [name, size] of build.artifacts) lines.push(`  artifact ${name} (${size} bytes)`);
  if (build.cached) lines.unshift('(served from cache)');
  return lines.join('\n');
}

function hints(build) {
  const out = [];
  if (build.seconds > 60) out.push(`slow build: ${build.seconds}s, consider --jobs`);
  if (build.failed.length > 1) out.push('several targets failed; the first one is ' + build.failed[0]);
  return out;
}

function check(build) {
  const bad = [];
  for (const [name, size] of build.artifacts) if (size === 0) bad.push(`artifact ${name} is empty`);
  for (const b of bad) console.error(b);
  return bad.length === 0;
}

module.exports = { summary, hints, check };
