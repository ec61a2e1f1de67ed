import { Job } from './base';

export class ResizeJob extends Job {
  protected readonly kind = 'resize';

  protected execute(input: number): number {
    if (input > 4096) console.warn(`resize: ${input}px exceeds 4096px, clamping`);
    return Math.min(input, 4096) / 2;
  }
}

export class EncodeJob extends Job {
  protected readonly kind = 'encode';

  protected execute(input: number): number {
    return input % 2 ? -1 : input * 8;
  }
}
