process.env.DEBUG = 'app:*';
process.env.DEBUG_COLORS = 'no';
process.env.DEBUG_HIDE_DATE = '1';
const H = require('recorder');
H.setup(__dirname + '/src');
const { compile, dispatch } = require('./src/router');
[['/a', '/b'], ['/users'], ['/x', '/y', '/z']].forEach((routes, c) => {
  H.case(c);
  const t = compile(routes);
  dispatch(t, routes[0]);
  dispatch(t, '/nope');
});
H.write();
