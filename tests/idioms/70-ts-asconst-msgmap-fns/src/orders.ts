import { format } from 'util';
import { MSG, MsgKey, TEXT } from './messages';

function say(key: MsgKey, ...args: unknown[]): void {
  console.log(format(MSG[key], ...args));
}

export function placeOrder(id: string, user: string, stock: number, carrier: string | null): void {
  say('created', id, user);
  if (stock < 5) console.warn(MSG.lowStock, stock, 'sku-' + id);
  if (carrier) {
    console.log(TEXT.shipped(id, carrier));
    return;
  }
  say('cancelled', id, 'no carrier available');
  console.info(TEXT.refund(id, stock * 2.5));
}
