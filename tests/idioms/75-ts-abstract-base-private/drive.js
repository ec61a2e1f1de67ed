const H = require('recorder');
H.setup(__dirname + '/src');
// the base class logs once when its module loads: in the first case
H.case(0);
const { ResizeJob, EncodeJob } = require(H.compiled('jobs/kinds'));
[[['resize', 800], ['encode', 12]], [['encode', 7]], [['resize', 9000], ['encode', 30], ['resize', 64]]].forEach((jobs, c) => {
  H.case(c);
  for (const [k, n] of jobs) (k === 'resize' ? new ResizeJob() : new EncodeJob()).run(n);
});
H.write();
