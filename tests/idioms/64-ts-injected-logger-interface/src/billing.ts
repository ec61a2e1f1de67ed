import { Logger } from './logger';

export class InvoiceService {
  constructor(private readonly logger: Logger, private readonly currency = 'EUR') {}

  issue(customer: string, amount: number): string {
    const id = `INV-${customer.toUpperCase()}-${amount}`;
    this.logger.info('issued %s for %d %s', id, amount, this.currency);
    this.logger.debug?.(`invoice ${id} has ${amount > 100 ? 'two' : 'one'} lines`);
    return id;
  }

  remind(id: string, days: number): void {
    if (days > 30) this.logger.warn('invoice %s overdue by %d days', id, days - 30);
    else this.logger.info(`reminder for ${id} scheduled in ${30 - days} days`);
  }
}
