/**
 * Storefront gateway: serves the cart and checkout API to the web client and
 * forwards orders to the orderflow service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { logger } from './logger';
import { tracer } from './telemetry';
import type { Handler, HttpMethod, HttpRequest, HttpResponse } from './types';
import { addItem, applyCoupon, getCart, removeItem } from './routes/cart';
import { cancelOrder, checkout, orderStatus, retryPayment } from './routes/orders';

interface Route {
  method: HttpMethod;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
}

type Middleware = (req: HttpRequest, next: () => Promise<HttpResponse>) => Promise<HttpResponse>;

const MAX_BODY_BYTES = 64 * 1024;

export class Router {
  readonly #routes: Route[] = [];
  readonly #middleware: Middleware[] = [];

  use(middleware: Middleware): this {
    this.#middleware.push(middleware);
    return this;
  }

  on(method: HttpMethod, path: string, handler: Handler): this {
    const keys: string[] = [];
    const source = path.replace(/:(\w+)/g, (_: string, key: string) => {
      keys.push(key);
      return '([^/]+)';
    });
    this.#routes.push({ method, pattern: new RegExp(`^${source}$`), keys, handler });
    return this;
  }

  async dispatch(req: HttpRequest): Promise<HttpResponse> {
    const route = this.#routes.find((r) => r.method === req.method && r.pattern.test(req.path));
    if (!route) return { status: 404, body: { error: 'not_found' } };
    const match = route.pattern.exec(req.path) ?? [];
    route.keys.forEach((key, i) => { req.params[key] = decodeURIComponent(match[i + 1]); });
    const chain = this.#middleware.reduceRight<() => Promise<HttpResponse>>(
      (next, mw) => () => mw(req, next),
      () => route.handler(req),
    );
    return chain();
  }
}

const accessLog: Middleware = async (req, next) => {
  const started = performance.now();
  const response = await next();
  const ms = (performance.now() - started).toFixed(1);
  const line = `${req.method} ${req.path} -> ${response.status} in ${ms}ms`;
  if (response.status >= 500) logger.error({ requestId: req.requestId }, line);
  else logger.info({ requestId: req.requestId }, line);
  return response;
};

const traced: Middleware = (req, next) =>
  tracer.startActiveSpan(`${req.method} ${req.path.replace(/\/[a-z]+_[0-9a-z]+/g, '/:id')}`, async (span) => {
    span.setAttribute('http.request.method', req.method);
    try {
      const response = await next();
      span.setAttribute('http.response.status_code', response.status);
      return response;
    } finally {
      span.end();
    }
  });

export function buildRouter(): Router {
  return new Router()
    .use(accessLog)
    .use(traced)
    .on('GET', '/carts/:cartId', getCart)
    .on('POST', '/carts/:cartId/items', addItem)
    .on('DELETE', '/carts/:cartId/items/:sku', removeItem)
    .on('POST', '/carts/:cartId/coupon', applyCoupon)
    .on('POST', '/checkout', checkout)
    .on('GET', '/orders/:orderId', orderStatus)
    .on('POST', '/orders/:orderId/cancel', cancelOrder)
    .on('POST', '/orders/:orderId/payment', retryPayment);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new RangeError(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
}

export function startServer(port = Number(process.env.PORT ?? 3000)) {
  const router = buildRouter();
  const server = createServer(async (raw: IncomingMessage, res: ServerResponse) => {
    const url = new URL(raw.url ?? '/', 'http://storefront.local');
    const requestId = (raw.headers['x-request-id'] as string | undefined) ?? randomUUID();
    let response: HttpResponse;
    try {
      const req: HttpRequest = {
        method: (raw.method ?? 'GET') as HttpMethod,
        path: url.pathname,
        params: {},
        query: url.searchParams,
        headers: raw.headers as Record<string, string | undefined>,
        body: await readJson(raw),
        requestId,
      };
      response = await router.dispatch(req);
    } catch (err) {
      const badInput = err instanceof SyntaxError || err instanceof RangeError;
      if (!badInput) logger.error({ requestId, err: String(err) }, 'unhandled error for %s', url.pathname);
      response = badInput
        ? { status: 400, body: { error: 'invalid_body' } }
        : { status: 500, body: { error: 'internal_error' } };
    }
    res.writeHead(response.status, { 'content-type': 'application/json', 'x-request-id': requestId, ...response.headers });
    res.end(JSON.stringify(response.body));
  });
  server.listen(port, () => logger.info('storefront listening on :%d', port));
  const shutdown = (signal: string) => {
    logger.warn('received %s, draining connections', signal);
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}

if (process.env.NODE_ENV !== 'test') {
  startServer();
}
