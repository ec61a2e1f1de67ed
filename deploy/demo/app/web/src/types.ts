/**
 * Shared types of the storefront gateway. Wire shapes that come from the
 * orderflow API keep its snake_case field names.
 */

export enum OrderStatus {
  Pending = 'pending',
  OnHold = 'on_hold',
  PaymentFailed = 'payment_failed',
  Confirmed = 'confirmed',
  Fulfilling = 'fulfilling',
  PartiallyShipped = 'partially_shipped',
  Shipped = 'shipped',
  Delivered = 'delivered',
  Returned = 'returned',
  Cancelled = 'cancelled',
  Rejected = 'rejected',
}

export enum PaymentMethod {
  Card = 'card',
  Wallet = 'wallet',
}

export type CurrencyCode = 'USD' | 'CAD' | 'GBP';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Address {
  name: string;
  line1: string;
  city: string;
  region?: string;
  postal_code: string;
  country: string;
}

export interface CartLine {
  sku: string;
  name: string;
  quantity: number;
  unitPriceCents: number;
}

export interface Cart {
  id: string;
  customerId: string;
  currency: CurrencyCode;
  lines: CartLine[];
  couponCode?: string;
  updatedAt: string;
}

export interface CheckoutRequest {
  cartId: string;
  paymentMethod: PaymentMethod;
  paymentToken: string;
  shippingAddress?: Address;
}

export interface ShipmentSummary {
  id: string;
  carrier: string | null;
  tracking: string | null;
  status: string;
}

export interface OrderSummary {
  order_id: string;
  status: OrderStatus;
  total: string;
  items: ReadonlyArray<{ sku: string; quantity: number }>;
  shipments: ShipmentSummary[];
  backorders: ReadonlyArray<{ sku: string; expected: string }>;
}

export interface ApiError {
  error: string;
  message?: string;
  order_id?: string;
}

export type Result<T, E = ApiError> =
  | { ok: true; value: T }
  | { ok: false; status: number; error: E };

export interface HttpRequest<B = unknown> {
  method: HttpMethod;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | undefined>;
  body: B;
  requestId: string;
}

export interface HttpResponse<T = unknown> {
  status: number;
  body: T;
  headers?: Record<string, string>;
}

// Handlers narrow the body type themselves (validated at runtime), hence `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Handler = (req: HttpRequest<any>) => Promise<HttpResponse>;

export const TERMINAL_STATUSES: ReadonlySet<OrderStatus> = new Set([
  OrderStatus.Returned,
  OrderStatus.Cancelled,
  OrderStatus.Rejected,
]);

export function isTerminal(status: OrderStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
