import { Component, useCallback, useEffect, useMemo, useState } from 'react';
import type { ErrorInfo, FormEvent, ReactNode } from 'react';
import { logger } from '../logger';
import { tracer } from '../telemetry';
import { OrderStatus, PaymentMethod } from '../types';
import type { Cart, OrderSummary } from '../types';
import { cartSubtotal, formatMoney, lineTotal } from '../util/money';

export interface CheckoutProps {
  cartId: string;
  onComplete?: (order: OrderSummary) => void;
  /** @deprecated use onComplete */
  onSuccess?: (orderId: string) => void;
}

type Phase = 'loading' | 'ready' | 'submitting' | 'declined' | 'done' | 'error';

const MESSAGES: Partial<Record<OrderStatus, string>> = {
  [OrderStatus.Confirmed]: 'Thanks! Your order is confirmed.',
  [OrderStatus.OnHold]: 'Thanks! We are reviewing your order and will e-mail you shortly.',
  [OrderStatus.Rejected]: 'Sorry, we could not accept this order.',
};

async function postJson<T>(url: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as T };
}

function PaymentMethodPicker({ value, onChange }: { value: PaymentMethod; onChange: (m: PaymentMethod) => void }) {
  return (
    <fieldset className="payment-methods">
      <legend>Pay with</legend>
      {Object.values(PaymentMethod).map((method) => (
        <label key={method}>
          <input type="radio" name="method" checked={value === method} onChange={() => onChange(method)} />
          {method === PaymentMethod.Card ? 'Credit or debit card' : 'Wallet'}
        </label>
      ))}
    </fieldset>
  );
}

export function Checkout({ cartId, onComplete, onSuccess }: CheckoutProps) {
  const [cart, setCart] = useState<Cart | null>(null);
  const [phase, setPhase] = useState<Phase>('loading');
  const [method, setMethod] = useState<PaymentMethod>(PaymentMethod.Card);
  const [order, setOrder] = useState<OrderSummary | null>(null);

  useEffect(() => {
    if (onSuccess) console.warn('Checkout: onSuccess is deprecated, use onComplete');
    let cancelled = false;
    fetch(`/carts/${encodeURIComponent(cartId)}`)
      .then((res) => (res.ok ? (res.json() as Promise<Cart>) : Promise.reject(new Error(`HTTP ${res.status}`))))
      .then((loaded) => {
        if (!cancelled) {
          setCart(loaded);
          setPhase('ready');
        }
      })
      .catch((err: Error) => {
        logger.warn({ cartId }, 'could not load cart: %s', err.message);
        if (!cancelled) setPhase('error');
      });
    return () => {
      cancelled = true;
    };
  }, [cartId, onSuccess]);

  const subtotal = useMemo(() => (cart ? formatMoney(cartSubtotal(cart), cart.currency) : ''), [cart]);

  const handleSubmit = useCallback(async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const token = new FormData(event.currentTarget).get('token');
    setPhase('submitting');
    await tracer.startActiveSpan('checkout.form_submit', async (span) => {
      try {
        const { body } = await postJson<OrderSummary>('/checkout', { cartId, paymentMethod: method, paymentToken: token });
        span.addEvent('checkout.response', { status: body.status });
        setOrder(body);
        if (body.status === OrderStatus.PaymentFailed) {
          setPhase('declined');
          return;
        }
        setPhase('done');
        onComplete?.(body);
        onSuccess?.(body.order_id);
      } catch (err) {
        logger.error({ cartId }, 'checkout request failed: %s', String(err));
        setPhase('error');
      } finally {
        span.end();
      }
    });
  }, [cartId, method, onComplete, onSuccess]);

  const handleMethodChange = (next: PaymentMethod) => {
    logger.debug('payment method changed to %s', next);
    setMethod(next);
  };

  if (phase === 'loading') return <p className="checkout__loading">Loading your cart…</p>;
  if (phase === 'error' || !cart) return <p role="alert">Something went wrong. Please try again.</p>;
  if (phase === 'done' && order) {
    return <p className="checkout__done">{MESSAGES[order.status] ?? `Order ${order.order_id}: ${order.status}`}</p>;
  }

  return (
    <form className="checkout" onSubmit={handleSubmit}>
      <ul className="checkout__lines">
        {cart.lines.map((line) => (
          <li key={line.sku}>
            {line.quantity} × {line.name} <span>{formatMoney(lineTotal(line), cart.currency)}</span>
          </li>
        ))}
      </ul>
      <p className="checkout__subtotal">Subtotal: {subtotal}</p>
      {phase === 'declined' && <p role="alert">Your payment was declined. Try another card or your wallet.</p>}
      <PaymentMethodPicker value={method} onChange={handleMethodChange} />
      <input name="token" type="hidden" value={method === PaymentMethod.Card ? 'pm_card_from_widget' : 'wt_from_wallet'} />
      <button type="submit" disabled={phase === 'submitting'}>
        {phase === 'submitting' ? 'Placing order…' : `Place order (${subtotal})`}
      </button>
    </form>
  );
}

interface BoundaryState {
  failed: boolean;
}

export class CheckoutErrorBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  state: BoundaryState = { failed: false };

  static getDerivedStateFromError(): BoundaryState {
    return { failed: true };
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    logger.error({ componentStack: info.componentStack }, 'checkout crashed: %s', error.message);
  }

  render(): ReactNode {
    if (this.state.failed) return <p role="alert">Checkout is unavailable right now.</p>;
    return this.props.children;
  }
}

export default Checkout;
