const H = require('recorder');
H.setup(__dirname + '/src');
const firing = require('./src/firing');
[
  [[['celadon', '10'], ['shino', '10']], { name: 'bowls', glazes: ['celadon'], soak: 20 }],
  [[['tenmoku', '6'], ['raku', '012']], { name: 'tiles', glazes: ['tenmoku', 'raku'], soak: 300, fast: true }],
  [[['clear', '06']], { name: 'beads', glazes: ['matte'], soak: 10 }],
  [[['ash', '10']], { name: 'jars', glazes: ['ash', 'celadon'], soak: 45 }],
].forEach(([defs, load], c) => {
  H.case(c);
  for (const [name, cone] of defs) firing.define(name, cone);
  firing.schedule(load);
});
H.write();
