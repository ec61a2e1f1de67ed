const H = require('recorder');
H.setup(__dirname + '/src');
const { make } = require('./src/logger');
const { Mailer } = require('./src/mailer');
const logger = make(H.stream());
[['a@x.io', 'Hi', 0], ['b@y.io', 'Invoice', 550], ['c@z.io', 'News', 0]].forEach(([to, s, code], c) => {
  H.case(c);
  const m = new Mailer(logger);
  m.send(to, s);
  if (code) m.bounce(to, code);
  m.stats(c + 1);
});
H.write();
