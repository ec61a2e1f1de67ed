import type { Address, ApiError, HttpMethod, OrderSummary } from '../types';
import { PaymentMethod } from '../types';
import { logger, type Logger } from '../logger';
import { SpanStatusCode, tracer, traceparent } from '../telemetry';

export class HttpError extends Error {
  constructor(readonly operation: string, readonly status: number, readonly body: ApiError) {
    super(`${operation} failed with HTTP ${status}: ${body.error}${body.message ? ` (${body.message})` : ''}`);
    this.name = 'HttpError';
  }

  get retryable(): boolean {
    return this.status === 429 || this.status === 503 || this.status === 504;
  }
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface CreateOrderBody {
  customer_id: string;
  items: Array<{ sku: string; quantity: number }>;
  payment_method: PaymentMethod;
  payment_token: string;
  shipping_address?: Address;
  coupon_code?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Base class for JSON-over-HTTP clients of our internal services. */
export abstract class ApiClient {
  readonly #baseUrl: string;
  #timeoutMs: number;
  protected readonly log: Logger;

  protected constructor(baseUrl: string, timeoutMs = 5_000) {
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#timeoutMs = timeoutMs;
    this.log = logger.child({ client: this.serviceName() });
  }

  protected abstract serviceName(): string;

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  set timeoutMs(value: number) {
    if (!(value > 0)) throw new RangeError(`timeout must be positive, got ${value}`);
    this.#timeoutMs = value;
  }

  /** Statuses whose JSON body is a normal answer rather than an error. */
  protected acceptedStatuses(): ReadonlySet<number> {
    return new Set([200, 201, 202]);
  }

  protected async request<T>(operation: string, method: HttpMethod, path: string,
    body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const span = tracer.startSpan(`${this.serviceName()}.${operation}`, {
      kind: 'client',
      attributes: { 'http.request.method': method, 'url.path': path },
    });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    try {
      const response = await fetch(`${this.#baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', traceparent: traceparent(span), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      span.setAttribute('http.response.status_code', response.status);
      const payload = (await response.json().catch(() => ({}))) as T & ApiError;
      if (!this.acceptedStatuses().has(response.status)) {
        throw new HttpError(operation, response.status, payload);
      }
      return payload;
    } catch (err) {
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR });
      if (err instanceof Error && err.name === 'AbortError') {
        throw new HttpError(operation, 504, { error: 'timeout', message: `no answer in ${this.#timeoutMs}ms` });
      }
      throw err;
    } finally {
      clearTimeout(timer);
      span.end();
    }
  }
}

export class OrderClient extends ApiClient {
  static #shared: OrderClient | undefined;
  readonly #retry: RetryPolicy;

  constructor(baseUrl: string, retry: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 }) {
    super(baseUrl);
    this.#retry = retry;
  }

  static fromEnv(): OrderClient {
    OrderClient.#shared ??= new OrderClient(process.env.ORDERFLOW_API_URL ?? 'http://localhost:8080');
    return OrderClient.#shared;
  }

  protected serviceName(): string {
    return 'orderflow';
  }

  protected override acceptedStatuses(): ReadonlySet<number> {
    // 402 (payment failed) and 422 (rejected) still carry the order summary.
    return new Set([200, 201, 202, 402, 422]);
  }

  createOrder(body: CreateOrderBody, idempotencyKey: string): Promise<OrderSummary> {
    return this.#withRetries('createOrder', () =>
      this.request<OrderSummary>('createOrder', 'POST', '/orders', body, { 'Idempotency-Key': idempotencyKey }));
  }

  getOrder(orderId: string): Promise<OrderSummary> {
    return this.#withRetries('getOrder', () =>
      this.request<OrderSummary>('getOrder', 'GET', `/orders/${encodeURIComponent(orderId)}`));
  }

  cancelOrder(orderId: string, reason: string): Promise<OrderSummary> {
    return this.request<OrderSummary>('cancelOrder', 'POST', `/orders/${encodeURIComponent(orderId)}/cancel`, { reason });
  }

  updatePayment(orderId: string, method: PaymentMethod, token: string): Promise<OrderSummary> {
    return this.request<OrderSummary>('updatePayment', 'POST', `/orders/${encodeURIComponent(orderId)}/payment`,
      { payment_method: method, payment_token: token });
  }

  static backoff(attempt: number, policy: RetryPolicy): number {
    const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(exp / 2 + Math.random() * (exp / 2));
  }

  async #withRetries<T>(operation: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const retryable = err instanceof HttpError ? err.retryable : err instanceof TypeError;
        if (!retryable || attempt >= this.#retry.attempts) {
          this.log.error({ operation, attempt, err: String(err) }, 'order api %s gave up after %d attempt(s)', operation, attempt);
          throw err;
        }
        const delay = OrderClient.backoff(attempt, this.#retry);
        this.log.warn({ operation, attempt, status: err instanceof HttpError ? err.status : undefined },
          'order api %s failed, retrying in %dms', operation, delay);
        await sleep(delay);
      }
    }
  }
}
