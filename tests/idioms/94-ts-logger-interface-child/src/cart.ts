import { Logger, silentLogger } from './logging';

interface Line {
  sku: string;
  qty: number;
  price: number;
}

export class Cart {
  private readonly log: Logger;
  private readonly lines: Line[] = [];

  constructor(readonly owner: string, logger: Logger = silentLogger) {
    this.log = logger.child('cart');
    this.log.log('debug', `cart opened for ${owner}`);
  }

  add(line: Line): void {
    if (line.qty <= 0) {
      this.log.log('warn', 'ignored a line without quantity', { sku: line.sku, qty: line.qty });
      return;
    }
    this.lines.push(line);
    this.log.log('info', `added ${line.qty} x ${line.sku}`, { price: line.price });
  }

  total(): number {
    return this.lines.reduce((s, l) => s + l.qty * l.price, 0);
  }
}

export class Checkout {
  private readonly log: Logger;

  constructor(logger: Logger, private readonly limit: number) {
    this.log = logger.child('checkout');
  }

  pay(cart: Cart, method: string): boolean {
    const total = cart.total();
    if (total > this.limit) {
      this.log.log('error', `payment of ${total.toFixed(2)} refused for ${cart.owner}`, { limit: this.limit, method });
      return false;
    }
    this.log.log('info', 'payment accepted', { owner: cart.owner, total, method });
    return true;
  }
}
