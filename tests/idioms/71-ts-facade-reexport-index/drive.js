const H = require('recorder');
// log/logger.ts is the logging facade: the callers of its methods emit the messages
H.setup(__dirname + '/src', { skip: ['log/logger.ts'] });
const { start } = require(H.compiled('services/app'));
[['dev', 'db.local', 1], ['prod', 'db-eu.internal', 3], ['staging', 'db-st.internal', 5]].forEach((a, c) => {
  H.case(c);
  start(...a);
});
H.write();
