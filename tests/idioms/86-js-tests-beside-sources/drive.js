const H = require('recorder');
H.setup(__dirname + '/src');
const { JobQueue } = require('./src/queue/job-queue');
// only the product code runs: queue/__tests__/ and examples/ ship beside it and log alike
const flaky = (failures, result) => (n) => {
  if (n <= failures) throw new Error(`upstream returned 503 on try ${n}`);
  return result;
};
[['thumbs', 1, [[1, flaky(0, 'a.png')], [2, flaky(1, 'b.png')]]], ['mail', 2, [[10, flaky(5, 'sent')]]], ['reports', 1, [[20, flaky(0, 'q3.pdf')], [21, flaky(2, 'q4.pdf')], [22, flaky(0, 'index.html')]]]].forEach(([name, conc, jobs], c) => {
  H.case(c);
  const q = new JobQueue(name, { concurrency: conc });
  for (const [id, work] of jobs) q.add(id, work);
  q.drain();
});
H.write();
