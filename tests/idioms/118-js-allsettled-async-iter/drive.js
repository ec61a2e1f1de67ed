const H = require('recorder');
H.setup(__dirname + '/src');
const { syncAll } = require('./src/calendars');
(async () => {
  const cases = [
    [{ name: 'work', pages: [12, 3] }, { name: 'family', pages: [4] }],
    [{ name: 'club', pages: [7, '<html>'] }, { name: 'school', pages: [2, 2, 1] }],
    [{ name: 'holidays', pages: ['timeout'] }, { name: 'gym', pages: [5, '{"x":}'] }, { name: 'team', pages: [9] }],
  ];
  for (const [c, providers] of cases.entries()) {
    H.case(c);
    await syncAll(providers);
  }
  H.write();
})();
