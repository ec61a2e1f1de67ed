import { OrderClient, HttpError } from '../clients/orderClient';
import { logger } from '../logger';
import { tracer, SpanStatusCode, withSpan } from '../telemetry';
import { OrderStatus, PaymentMethod, isTerminal } from '../types';
import type { CheckoutRequest, HttpRequest, HttpResponse, OrderSummary } from '../types';
import { cartSubtotal, formatMoney } from '../util/money';
import { carts } from './cart';

const log = logger.child({ route: 'orders' });
const client = OrderClient.fromEnv();

const STATUS_FOR: Partial<Record<OrderStatus, number>> = {
  [OrderStatus.Confirmed]: 201,
  [OrderStatus.OnHold]: 202,
  [OrderStatus.PaymentFailed]: 402,
  [OrderStatus.Rejected]: 422,
};

function isCheckoutRequest(body: unknown): body is CheckoutRequest {
  const b = body as Partial<CheckoutRequest> | null;
  return !!b && typeof b.cartId === 'string' && typeof b.paymentToken === 'string' &&
    Object.values(PaymentMethod).includes(b.paymentMethod as PaymentMethod);
}

const fromHttpError = (err: unknown): HttpResponse => {
  if (err instanceof HttpError) return { status: err.status, body: err.body };
  return { status: 502, body: { error: 'upstream_unavailable' } };
};

export const checkout = (req: HttpRequest): Promise<HttpResponse> =>
  tracer.startActiveSpan('checkout.submit', async (span) => {
    try {
      if (!isCheckoutRequest(req.body)) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'invalid body' });
        return { status: 400, body: { error: 'invalid_request' } };
      }
      const { cartId, paymentMethod, paymentToken, shippingAddress } = req.body;
      const cart = carts.get(cartId);
      if (!cart || cart.lines.length === 0) {
        log.warn({ cartId, requestId: req.requestId }, 'checkout of empty or unknown cart %s', cartId);
        return { status: 409, body: { error: 'empty_cart' } };
      }
      span.setAttributes({ 'cart.id': cartId, 'cart.lines': cart.lines.length });
      span.addEvent('cart.validated', { subtotal: cartSubtotal(cart) });
      log.info('submitting cart %s (%s) for customer %s', cartId,
        formatMoney(cartSubtotal(cart), cart.currency), cart.customerId);

      const order: OrderSummary = await client.createOrder({
        customer_id: cart.customerId,
        items: cart.lines.map(({ sku, quantity }) => ({ sku, quantity })),
        payment_method: paymentMethod,
        payment_token: paymentToken,
        shipping_address: shippingAddress,
        coupon_code: cart.couponCode,
      }, `cart-${cartId}`);

      span.addEvent('order.created', { 'order.id': order.order_id, 'order.status': order.status });
      if (order.status === OrderStatus.PaymentFailed) {
        log.warn({ orderId: order.order_id }, 'payment for order %s was declined', order.order_id);
      } else if (!isTerminal(order.status)) {
        carts.delete(cartId);
      }
      return { status: STATUS_FOR[order.status] ?? 200, body: order };
    } catch (err) {
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR });
      log.error({ err: String(err), requestId: req.requestId }, 'checkout failed');
      return fromHttpError(err);
    } finally {
      span.end();
    }
  });

export const orderStatus = async (req: HttpRequest): Promise<HttpResponse> => {
  try {
    return { status: 200, body: await client.getOrder(req.params.orderId) };
  } catch (err) {
    return fromHttpError(err);
  }
};

export const cancelOrder = async (req: HttpRequest<{ reason?: string }>): Promise<HttpResponse> =>
  withSpan('checkout.cancel', { 'order.id': req.params.orderId }, async (span) => {
    try {
      const order = await client.cancelOrder(req.params.orderId, req.body?.reason ?? 'requested by customer');
      span.addEvent('order.cancelled');
      log.info(`order ${order.order_id} cancelled from the storefront`);
      return { status: 200, body: order };
    } catch (err) {
      if (err instanceof HttpError && err.status === 409) {
        log.info({ orderId: req.params.orderId }, 'order %s can no longer be cancelled', req.params.orderId);
      }
      return fromHttpError(err);
    }
  });

export const retryPayment = async (req: HttpRequest<{ paymentMethod?: PaymentMethod; paymentToken?: string }>): Promise<HttpResponse> => {
  const { paymentMethod = PaymentMethod.Card, paymentToken } = req.body ?? {};
  if (!paymentToken) return { status: 400, body: { error: 'payment_token_required' } };
  const span = tracer.startSpan('checkout.retry_payment', { attributes: { 'order.id': req.params.orderId } });
  try {
    const order = await client.updatePayment(req.params.orderId, paymentMethod, paymentToken);
    span.addEvent('payment.updated', { 'order.status': order.status });
    return { status: STATUS_FOR[order.status] ?? 200, body: order };
  } catch (err) {
    span.recordException(err);
    return fromHttpError(err);
  } finally {
    span.end();
  }
};
