import { deprecated, logged } from './decorators';

export class Gateway {
  constructor(private readonly name: string) {}

  @logged
  authorize(card: string, amount: number): boolean {
    const ok = amount < 1000;
    console.log(`${this.name}: authorization ${ok ? 'granted' : 'refused'} for card ending ${card.slice(-4)}`);
    return ok;
  }

  @deprecated('use capture() instead')
  settle(id: string): void {
    console.log('settling %s on %s', id, this.name);
  }
}
