import { BaseLogger } from './log/base';

interface Ticket {
  plate: string;
  enteredMin: number;
}

export class Garage {
  private readonly parked = new Map<string, Ticket>();

  constructor(private readonly log: BaseLogger, private readonly capacity: number, private readonly ratePerHour = 2.5) {}

  enter(plate: string, atMin: number): boolean {
    if (this.parked.size >= this.capacity) {
      this.log.warn({ plate, capacity: this.capacity }, 'garage full, barrier stays down');
      return false;
    }
    this.parked.set(plate, { plate, enteredMin: atMin });
    this.log.info(`${plate} entered, ${this.capacity - this.parked.size} spaces left`);
    return true;
  }

  leave(plate: string, atMin: number): number | undefined {
    const ticket = this.parked.get(plate);
    if (!ticket) {
      this.log.warn(`no ticket for ${plate} at the exit`);
      return undefined;
    }
    this.parked.delete(plate);
    const hours = Math.ceil((atMin - ticket.enteredMin) / 60);
    const fee = hours * this.ratePerHour;
    this.log.debug({ plate, minutes: atMin - ticket.enteredMin }, 'stay measured');
    this.log.info({ plate, hours, fee: fee.toFixed(2) }, 'fee charged');
    return fee;
  }
}
