const H = require('recorder');
const path = require('path');
H.setup(__dirname + '/src');
const { Sessions } = require('./src/sessions');
// the service runs on files (fs-store.js); memory-store.js logs the same text and does not run
const dir = (name) => 'file:' + path.join(process.env.IDIOM_OUT, 'stores', name);
[['sessions-eu', [['login', 'ann', ['admin']], ['check', 'ann'], ['check', 'bob'], ['logout', 'ann']]],
  ['sessions-us', [['logout', 'cy'], ['login', 'cy', ['viewer', 'editor', 'billing']], ['check', 'cy']]],
  ['sessions-eu', [['check', 'ann'], ['login', 'dee', []], ['logout', 'dee'], ['logout', 'dee']]]].forEach(([name, ops], c) => {
  H.case(c);
  const s = new Sessions(dir(name));
  for (const [op, ...args] of ops) s[op](...args);
});
H.write();
