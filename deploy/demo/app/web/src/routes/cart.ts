import type { Cart, CartLine, CurrencyCode, HttpRequest, HttpResponse } from '../types';
import { logger } from '../logger';
import { cartSubtotal, formatMoney } from '../util/money';

const log = logger.child({ route: 'cart' });

/** Catalog prices the storefront shows; orderflow re-prices at checkout. */
export const PRICE_LIST: ReadonlyMap<string, { name: string; cents: number }> = new Map([
  ['KB-104', { name: 'Mechanical keyboard, full size', cents: 12_900 }],
  ['MS-ERG', { name: 'Ergonomic wireless mouse', cents: 5_900 }],
  ['MN-27Q', { name: '27-inch QHD monitor', cents: 32_900 }],
  ['HS-ANC', { name: 'Noise-cancelling headset', cents: 17_900 }],
  ['DK-USB4', { name: 'USB4 docking station', cents: 24_900 }],
  ['CB-C2C', { name: 'USB-C cable, 2 m', cents: 1_500 }],
  ['DS-ELEC', { name: 'Electric standing desk frame', cents: 49_900 }],
  ['GC-050', { name: 'Gift card, $50', cents: 5_000 }],
]);

export const MAX_QUANTITY = 10;

interface AddItemBody {
  sku?: string;
  quantity?: number;
}

/** In-process cart store keyed by cart id; evicts carts idle for a day. */
export class CartStore<K extends string = string> {
  static readonly TTL_MS = 24 * 60 * 60 * 1000;
  readonly #carts = new Map<K, Cart>();

  get size(): number {
    return this.#carts.size;
  }

  get(id: K): Cart | undefined {
    const cart = this.#carts.get(id);
    if (cart && Date.now() - Date.parse(cart.updatedAt) > CartStore.TTL_MS) {
      this.#carts.delete(id);
      log.info({ cartId: id }, 'evicted idle cart %s', id);
      return undefined;
    }
    return cart;
  }

  getOrCreate(id: K, customerId: string, currency: CurrencyCode = 'USD'): Cart {
    const existing = this.get(id);
    if (existing) return existing;
    const cart: Cart = { id, customerId, currency, lines: [], updatedAt: new Date().toISOString() };
    this.#carts.set(id, cart);
    return cart;
  }

  save(cart: Cart): void {
    cart.updatedAt = new Date().toISOString();
    this.#carts.set(cart.id as K, cart);
  }

  delete(id: K): boolean {
    return this.#carts.delete(id);
  }
}

export const carts = new CartStore();

const cartView = (cart: Cart) => ({
  ...cart,
  subtotal: formatMoney(cartSubtotal(cart), cart.currency),
  itemCount: cart.lines.reduce((n, line) => n + line.quantity, 0),
});

const customerOf = (req: HttpRequest): string | undefined => req.headers['x-customer-id'];

export const getCart = async (req: HttpRequest): Promise<HttpResponse> => {
  const cart = carts.get(req.params.cartId);
  if (!cart) return { status: 404, body: { error: 'cart_not_found' } };
  return { status: 200, body: cartView(cart) };
};

export const addItem = async (req: HttpRequest): Promise<HttpResponse> => {
  const customerId = customerOf(req);
  if (!customerId) return { status: 401, body: { error: 'unauthenticated' } };
  const { sku, quantity = 1 } = (req.body ?? {}) as AddItemBody;
  const product = sku ? PRICE_LIST.get(sku) : undefined;
  if (!sku || !product) {
    log.warn({ cartId: req.params.cartId, sku }, 'rejected unknown sku %s', sku ?? '<missing>');
    return { status: 422, body: { error: 'unknown_sku' } };
  }
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return { status: 422, body: { error: 'invalid_quantity', message: `1..${MAX_QUANTITY}` } };
  }
  const cart = carts.getOrCreate(req.params.cartId, customerId);
  const line = cart.lines.find((l: CartLine) => l.sku === sku);
  if (line) {
    line.quantity = Math.min(MAX_QUANTITY, line.quantity + quantity);
  } else {
    cart.lines.push({ sku, name: product.name, quantity, unitPriceCents: product.cents });
  }
  carts.save(cart);
  log.info({ cartId: cart.id, sku, quantity }, `added ${quantity} x ${sku} to cart ${cart.id}`);
  return { status: 200, body: cartView(cart) };
};

export const removeItem = async (req: HttpRequest): Promise<HttpResponse> => {
  const cart = carts.get(req.params.cartId);
  if (!cart) return { status: 404, body: { error: 'cart_not_found' } };
  const before = cart.lines.length;
  cart.lines = cart.lines.filter((l) => l.sku !== req.params.sku);
  if (cart.lines.length === before) {
    log.debug('sku %s was not in cart %s', req.params.sku, cart.id);
  }
  carts.save(cart);
  return { status: 200, body: cartView(cart) };
};

export const applyCoupon = async (req: HttpRequest<{ code?: string }>): Promise<HttpResponse> => {
  const cart = carts.get(req.params.cartId);
  const code = req.body?.code?.trim().toUpperCase();
  if (!cart || !code) return { status: 400, body: { error: 'invalid_request' } };
  // Coupons are validated by orderflow when the order is priced.
  cart.couponCode = code;
  carts.save(cart);
  log.info({ cartId: cart.id }, 'coupon %s attached to cart', code);
  return { status: 200, body: cartView(cart) };
};
