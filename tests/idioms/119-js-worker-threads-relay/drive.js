const H = require('recorder');
H.setup(__dirname + '/src');
const { hashAll } = require('./src/hasher');
(async () => {
  const cases = [
    [[['notes.txt', ['hello', 'world']]], true],
    [[['photo.raw', ['x'.repeat(40), 'y'.repeat(40)]], ['empty.bin', ['abc', '']]], false],
    [[['log.1', ['line one', 'line two']], ['log.2', ['', 'late']], ['log.3', ['z']]], true],
  ];
  for (const [c, [files, verbose]] of cases.entries()) {
    H.case(c);
    await hashAll(files, { verbose });
  }
  H.write();
})();
