/**
 * Tracing for the storefront. The interfaces follow @opentelemetry/api so the
 * call sites (`tracer.startActiveSpan(...)`, `span.addEvent(...)`) do not
 * change when the OTLP exporter is wired in; until then finished spans are
 * written to the debug log.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { logger } from './logger';

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue | undefined>;

export enum SpanStatusCode {
  UNSET = 0,
  OK = 1,
  ERROR = 2,
}

export type SpanKind = 'internal' | 'server' | 'client';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
}

export interface Span {
  readonly name: string;
  readonly traceId: string;
  readonly spanId: string;
  setAttribute(key: string, value: AttributeValue): this;
  setAttributes(attributes: Attributes): this;
  addEvent(name: string, attributes?: Attributes): this;
  setStatus(status: { code: SpanStatusCode; message?: string }): this;
  recordException(error: unknown): void;
  end(): void;
}

export interface Tracer {
  startSpan(name: string, options?: SpanOptions): Span;
  startActiveSpan<T>(name: string, fn: (span: Span) => T): T;
  startActiveSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => T): T;
}

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
const active = new AsyncLocalStorage<Span>();
const spanLog = logger.child({ component: 'tracing' });

class RecordingSpan implements Span {
  readonly traceId: string;
  readonly spanId = hex(8);
  readonly #started = performance.now();
  #attributes: Attributes;
  #events: Array<{ name: string; at: number; attributes?: Attributes }> = [];
  #status: SpanStatusCode = SpanStatusCode.UNSET;
  #ended = false;

  constructor(readonly name: string, readonly kind: SpanKind, parent?: Span, attributes: Attributes = {}) {
    this.traceId = parent?.traceId ?? hex(16);
    this.#attributes = { ...attributes };
  }

  setAttribute(key: string, value: AttributeValue): this {
    this.#attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    Object.assign(this.#attributes, attributes);
    return this;
  }

  addEvent(name: string, attributes?: Attributes): this {
    this.#events.push({ name, at: performance.now(), attributes });
    return this;
  }

  setStatus(status: { code: SpanStatusCode; message?: string }): this {
    this.#status = status.code;
    if (status.message) this.#attributes['status.message'] = status.message;
    return this;
  }

  recordException(error: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    this.addEvent('exception', { 'exception.type': err.name, 'exception.message': err.message });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const durationMs = Math.round((performance.now() - this.#started) * 10) / 10;
    spanLog.debug(
      { traceId: this.traceId, spanId: this.spanId, kind: this.kind, status: this.#status,
        events: this.#events.map((e) => e.name), ...this.#attributes },
      'span %s finished in %dms', this.name, durationMs,
    );
  }
}

class LocalTracer implements Tracer {
  constructor(readonly scope: string) {}

  startSpan(name: string, options: SpanOptions = {}): Span {
    return new RecordingSpan(name, options.kind ?? 'internal', active.getStore(), options.attributes);
  }

  startActiveSpan<T>(name: string, ...rest: [(span: Span) => T] | [SpanOptions, (span: Span) => T]): T {
    const [options, fn] = rest.length === 1 ? [{}, rest[0]] : rest;
    const span = this.startSpan(name, options);
    return active.run(span, () => fn(span));
  }
}

export const tracer: Tracer = new LocalTracer('orderflow-storefront');

export const currentSpan = (): Span | undefined => active.getStore();

/** W3C trace context header for an outgoing request made inside `span`. */
export function traceparent(span: Span): string {
  return `00-${span.traceId}-${span.spanId}-01`;
}

/** Run `fn` in an active span that records failures and always ends. */
export async function withSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await fn(span);
      span.setStatus({ code: SpanStatusCode.OK });
      return result;
    } catch (err) {
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      span.end();
    }
  });
}
