const H = require('recorder');
H.setup(__dirname + '/src');
const { Page } = require(H.compiled('page'));
[
  ['home', 'Welcome', (p) => { p.edit('ann', 'Welcome!'); p.publish('ann'); }],
  ['pricing', 'Prices', (p) => { p.lock('bob'); p.edit('cy', 'Plans'); p.publish('cy'); p.unlock('cy'); p.unlock('bob'); p.edit('cy', 'Plans'); p.publish('cy'); }],
  ['about', 'About us', (p) => { p.unlock('dee'); p.edit('dee', 'About us'); p.bump('dee'); p.publish('eve'); }],
].forEach(([id, title, run], c) => {
  H.case(c);
  run(new Page(id, title));
});
H.write();
