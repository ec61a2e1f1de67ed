export const MSG = {
  created: 'order %s created for %s',
  lowStock: 'only %d units of %s left',
  cancelled: 'order %s cancelled: %s',
} as const;

export type MsgKey = keyof typeof MSG;

export const TEXT = {
  shipped: (id: string, carrier: string) => `order ${id} shipped via ${carrier}`,
  refund: (id: string, amount: number) => `refund of ${amount.toFixed(2)} EUR issued for ${id}`,
} satisfies Record<string, (...args: any[]) => string>;
