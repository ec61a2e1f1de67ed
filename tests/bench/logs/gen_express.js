#!/usr/bin/env node
'use strict';
/*
 * Event log of the npm express 4 web framework (plain JavaScript; logs
 * through npm `debug` 2.x: `var debug = require('debug')('express:router')`).
 *
 *   node gen_express.js --repo            # prints the directory to index
 *   node gen_express.js --out LOG.csv.gz [--cases 2000] [--seed 1] [--deps DIR]
 *
 * Indexed directory: <deps>/node_modules/express/lib (only records emitted
 * there are kept; send, finalhandler, body-parser... are other packages).
 *
 * A case is one express application lifetime: the case builds an app with
 * seeded variety (NODE_ENV, settings such as query parser / strict and
 * case-sensitive routing / etag / trust proxy / json spaces / view cache,
 * a tiny template engine or none, body parsers, express.static, nested
 * routers with mergeParams/strict options, `router.param` handlers,
 * `app.route()` chains, middleware chains calling next(), next('route'),
 * next('router') or next(err), thrown errors, error middleware, mounted
 * sub-apps (some without any route), redirects, res.render / app.render
 * (existing and missing views, an engine that is not installed),
 * res.sendFile / res.download of missing files, JSON/text responses), then
 * serves a short keep-alive sequence of 1-8 HTTP requests (method, path,
 * query string, JSON/urlencoded bodies drawn from the routes it built plus
 * unknown paths) through a http.Server on 127.0.0.1, and the connection is
 * closed.  Building the app logs too (`booting`, `set`, `use`, `new` layer /
 * route), as in a real process start.  Each case draws from its own PRNG
 * seeded with `<seed>-<i>`.
 */
const fs = require('fs');
const os = require('os');
const http = require('http');
const path = require('path');
const cap = require('./_capture');

function parseArgs(argv) {
  return require('./_capture').parseArgs(argv, 'express', 2000);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const args = parseArgs(process.argv);
  const nm = path.join(args.deps, 'node_modules');
  const indexDir = path.join(nm, 'express', 'lib');
  if (!fs.existsSync(indexDir)) {
    process.stderr.write(`express not installed in ${args.deps} (npm ci there)\n`);
    process.exit(1);
  }
  if (args.repo) { process.stdout.write(fs.realpathSync(indexDir) + '\n'); return; }
  if (!args.out) { process.stderr.write('--out FILE required\n'); process.exit(2); }

  const log = new cap.EventLog(args.out, { indexDir });
  cap.hookDebug(log, args.deps, { enable: 'express:*' });
  process.noDeprecation = true; // depd warnings (res.redirect('back')), read when express loads
  const express = require(path.join(nm, 'express'));
  console.error = () => {}; // express' logerror prints 500 stacks outside env=test

  // files: views and static assets in a temp dir, removed at the end
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-express-'));
  process.on('exit', () => { try { fs.rmSync(tmp, { recursive: true, force: true }); } catch (e) { /* ignore */ } });
  const views = path.join(tmp, 'views');
  const views2 = path.join(tmp, 'views2');
  const pub = path.join(tmp, 'public');
  for (const d of [views, path.join(views, 'users'), views2, pub, path.join(pub, 'css'), path.join(pub, 'sub')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(views, 'index.tpl'), '<h1>{{title}}</h1>');
  fs.writeFileSync(path.join(views, 'users', 'show.tpl'), '<p>{{name}}</p>');
  fs.writeFileSync(path.join(views, 'broken.tpl'), '{{#fail}}');
  fs.writeFileSync(path.join(views2, 'about.tpl'), 'about {{title}}');
  fs.writeFileSync(path.join(views, 'page.html'), '<html>{{title}}</html>');
  fs.writeFileSync(path.join(pub, 'index.html'), '<html>static</html>');
  fs.writeFileSync(path.join(pub, 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(pub, 'css', 'site.css'), 'body{}');
  fs.writeFileSync(path.join(pub, 'sub', 'index.html'), 'sub');
  fs.writeFileSync(path.join(pub, 'data.json'), '{"a":1}');

  const tplEngine = (file, opts, cb) => {
    fs.readFile(file, 'utf8', (err, s) => {
      if (err) return cb(err);
      if (s.includes('{{#fail}}')) return cb(new Error('template error in ' + path.basename(file)));
      cb(null, s.replace(/\{\{(\w+)\}\}/g, (m, k) => String(opts[k] === undefined ? '' : opts[k])));
    });
  };

  let current = null;
  const server = http.createServer((req, res) => {
    if (current) current(req, res);
    else { res.statusCode = 503; res.end(); }
  });
  server.keepAliveTimeout = 2000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;

  // ------------------------------------------------------------ app builder
  function buildApp(R) {
    const paths = []; // request candidates: [method, path, body?]
    const envs = ['development', 'production', 'test', undefined];
    const env = R.pick(envs);
    if (env === undefined) delete process.env.NODE_ENV; else process.env.NODE_ENV = env;
    const app = express();
    const named = (name, fn) => Object.defineProperty(fn, 'name', { value: name });

    // settings
    if (R.chance(0.3)) app.set('query parser', R.pick(['simple', 'extended', false]));
    if (R.chance(0.2)) app.set('strict routing', true);
    if (R.chance(0.2)) app.set('case sensitive routing', true);
    if (R.chance(0.2)) app.set('etag', R.pick([false, 'strong', 'weak']));
    if (R.chance(0.3)) app.disable('x-powered-by');
    if (R.chance(0.15)) app.set('trust proxy', R.pick([true, 'loopback', 1]));
    if (R.chance(0.2)) app.set('json spaces', R.int(0, 4));
    if (R.chance(0.1)) app.enable('view cache');
    if (R.chance(0.1)) app.set('subdomain offset', 1);
    if (R.chance(0.1)) app.locals.title = 'Site';
    const hasViews = R.chance(0.55);
    if (hasViews) {
      app.engine('tpl', tplEngine);
      if (R.chance(0.3)) app.engine('html', tplEngine);
      app.set('views', R.chance(0.25) ? [views, views2] : views);
      if (R.chance(0.7)) app.set('view engine', 'tpl');
    }

    // global middleware
    if (R.chance(0.5)) app.use(named(R.pick(['logger', 'timer', 'requestId']), (req, res, next) => { res.set('X-Mw', '1'); next(); }));
    if (R.chance(0.4)) app.use(express.json({ limit: R.pick(['1kb', '100kb']) }));
    if (R.chance(0.3)) app.use(express.urlencoded({ extended: R.chance(0.5) }));
    if (R.chance(0.1)) app.use(express.text());
    if (R.chance(0.35)) {
      const mount = R.pick(['/static', '/assets', '/']);
      app.use(mount, express.static(pub, { index: R.chance(0.8) ? 'index.html' : false, redirect: R.chance(0.8), fallthrough: R.chance(0.8) }));
      for (const f of ['index.html', 'app.js', 'css/site.css', 'missing.png', 'sub', 'sub/', 'data.json', '../etc/passwd']) paths.push(['GET', (mount === '/' ? '' : mount) + '/' + f]);
    }
    if (R.chance(0.2)) app.use('/api', named('apiAuth', (req, res, next) => (req.query.token === 'bad' ? next(Object.assign(new Error('forbidden'), { status: 403 })) : next())));

    // plain routes
    app.get('/', (req, res) => res.send('home'));
    paths.push(['GET', '/'], ['HEAD', '/'], ['GET', '/?a=1&b[c]=2&b[d]=3']);
    if (R.chance(0.5)) {
      app.get('/hello/:name', (req, res) => res.json({ hello: req.params.name, q: req.query }));
      paths.push(['GET', '/hello/world'], ['GET', '/Hello/World'], ['GET', '/hello/a/b']);
    }
    if (R.chance(0.4)) {
      app.get('/maybe/:n', (req, res, next) => (Number(req.params.n) % 2 ? next('route') : res.send('even')),
        (req, res) => res.send('never'));
      app.get('/maybe/:n', (req, res) => res.send('odd via next(route)'));
      paths.push(['GET', '/maybe/2'], ['GET', '/maybe/3']);
    }
    if (R.chance(0.4)) {
      app.get('/boom', () => { throw new Error('boom'); });
      app.get('/fail', (req, res, next) => next(Object.assign(new Error('teapot'), { status: 418 })));
      app.get('/async-fail', (req, res, next) => setImmediate(() => next(new Error('later'))));
      paths.push(['GET', '/boom'], ['GET', '/fail'], ['GET', '/async-fail']);
    }
    if (R.chance(0.35)) {
      app.get('/go', (req, res) => res.redirect(R.pick([301, 302, 307]), '/'));
      app.get('/back', (req, res) => res.redirect('back'));
      paths.push(['GET', '/go'], ['GET', '/back']);
    }
    if (R.chance(0.3)) {
      app.get('/file/:f', (req, res, next) => res.sendFile(path.join(pub, req.params.f), (err) => { if (err) next(err); }));
      app.get('/dl', (req, res) => res.download(path.join(pub, 'nope.bin')));
      paths.push(['GET', '/file/app.js'], ['GET', '/file/nope.txt'], ['GET', '/dl']);
    }
    if (hasViews) {
      app.get('/page', (req, res) => res.render(R.pick(['index', 'users/show', 'about', 'missing', 'broken', 'page.html', 'page.hbs', 'index.tpl']), { name: 'ann' }));
      app.get('/render', (req, res, next) => app.render(R.pick(['index', 'nothing', 'broken']), { title: 't' }, (err, html) => (err ? next(err) : res.send(html))));
      paths.push(['GET', '/page'], ['GET', '/page'], ['GET', '/render']);
    } else if (R.chance(0.2)) {
      app.get('/page', (req, res) => res.render('index'));
      paths.push(['GET', '/page']);
    }
    if (R.chance(0.4)) {
      app.route('/books')
        .all(named('booksAll', (req, res, next) => next()))
        .get((req, res) => res.json([{ id: 1 }]))
        .post((req, res) => res.status(201).json(req.body || {}))
        .delete((req, res) => res.sendStatus(204));
      paths.push(['GET', '/books'], ['POST', '/books', { t: 'x' }], ['DELETE', '/books'], ['PUT', '/books'], ['OPTIONS', '/books']);
    }

    // routers
    const nRouters = R.int(0, 3);
    for (let k = 0; k < nRouters; k++) {
      const r = express.Router({ mergeParams: R.chance(0.5), strict: R.chance(0.2), caseSensitive: R.chance(0.2) });
      const base = R.pick(['/api', '/users', '/shop', '/v' + k]);
      r.param('id', named('loadId', (req, res, next, id) => (/^\d+$/.test(id) ? next() : id === 'skip' ? next('route') : next(Object.assign(new Error('bad id'), { status: 400 })))));
      if (R.chance(0.5)) r.use(named('routerMw', (req, res, next) => next()));
      if (R.chance(0.3)) r.use(named('bail', (req, res, next) => (req.query.bail ? next('router') : next())));
      r.get('/', (req, res) => res.send('list'));
      r.get('/:id', (req, res) => res.json({ id: req.params.id }));
      r.put('/:id', (req, res) => res.json({ updated: req.params.id, body: req.body }));
      r.get('/:id/items/:item', (req, res) => res.send(`${req.params.id}/${req.params.item}`));
      const paths2 = [['GET', '/'], ['GET', '/7'], ['GET', '/abc'], ['GET', '/skip'], ['PUT', '/7', { a: 1 }], ['GET', '/7/items/3'], ['GET', '/7?bail=1'], ['GET', '/7/'], ['POST', '/7']];
      if (R.chance(0.4)) {
        const inner = express.Router({ mergeParams: true });
        inner.get('/:sub', (req, res) => res.json(req.params));
        inner.use((err, req, res, next) => (R.chance(0.5) ? res.status(422).send('inner error') : next(err)));
        r.use('/:id/nested', inner);
        paths2.push(['GET', '/5/nested/x'], ['GET', '/bad/nested/x']);
      }
      app.use(base, r);
      for (const [m, p, b] of paths2) paths.push([m, base + (p === '/' ? '' : p), b]);
    }

    // sub-apps
    if (R.chance(0.3)) {
      const sub = express();
      const mp = R.pick(['/admin', '/blog']);
      if (R.chance(0.7)) {
        sub.get('/', (req, res) => res.send('sub home ' + req.baseUrl));
        sub.get('/post/:slug', (req, res) => res.send(req.params.slug));
        sub.use((req, res, next) => next());
      }
      app.use(mp, sub);
      paths.push(['GET', mp], ['GET', mp + '/'], ['GET', mp + '/post/hello'], ['GET', mp + '/x']);
    }

    // tail: 404 handler / error handlers
    if (R.chance(0.4)) app.use(named('notFound', (req, res) => res.status(404).send('custom 404')));
    if (R.chance(0.6)) {
      app.use(named('errorLogger', (err, req, res, next) => next(err)));
      if (R.chance(0.7)) app.use(named('errorHandler', (err, req, res, next) => res.status(err.status || 500).send(err.message)));
    }
    paths.push(['GET', '/nope'], ['POST', '/nope', { x: 1 }], ['PATCH', '/'], ['GET', '/%E0%A4%A']);
    return { app, paths };
  }

  const agentOpts = { keepAlive: true, maxSockets: 1 };

  function request(agent, method, p, body, R) {
    return new Promise((resolve) => {
      let data = null;
      const headers = {};
      if (body) {
        if (R.chance(0.7)) { data = JSON.stringify(body); headers['content-type'] = 'application/json'; if (R.chance(0.1)) data = '{bad json'; } else { data = 'a=1&b[c]=2'; headers['content-type'] = 'application/x-www-form-urlencoded'; }
        headers['content-length'] = Buffer.byteLength(data);
      }
      if (R.chance(0.1)) headers['x-forwarded-for'] = '10.0.0.1';
      if (R.chance(0.1)) headers['accept'] = R.pick(['application/json', 'text/html']);
      const req = http.request({ host: '127.0.0.1', port, method, path: p, agent, headers }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode));
        res.on('error', () => resolve(0));
      });
      req.on('error', () => resolve(0));
      req.setTimeout(1000, () => { req.destroy(); resolve(0); });
      if (data) req.write(data);
      req.end();
    });
  }

  const t0 = Date.now();
  for (let i = 0; i < args.cases; i++) {
    const R = cap.rngTools(cap.seededRandom(`${args.seed}-${i}`));
    log.caseId = `c${String(i).padStart(5, '0')}`;
    const agent = new http.Agent(agentOpts);
    try {
      const { app, paths } = buildApp(R);
      current = app;
      const n = R.int(1, 8);
      for (let k = 0; k < n; k++) {
        const [m, p, b] = R.chance(0.9) ? R.pick(paths) : [R.pick(['GET', 'POST']), '/' + R.pick(['x', 'api/x/y', 'users/1/items', 'static/../../x']), null];
        let q = '';
        if (R.chance(0.2) && !p.includes('?')) q = '?' + R.pick(['a=1', 'a[b]=1&a[c]=2', 'list=1&list=2', 'token=bad', 'bail=1']);
        await request(agent, m, p + q, b, R);
      }
    } catch (e) {
      if (process.env.GEN_VERBOSE) process.stderr.write(`${log.caseId}: ${e.stack}\n`);
    }
    agent.destroy();
    await sleep(1);
    current = null;
    log.endCase();
  }
  await log.finish();
  server.close();
  server.closeAllConnections();
  fs.rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`${log.summary()} in ${((Date.now() - t0) / 1000).toFixed(1)}s\n`);
  process.exit(0);
}

main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
