import { Ingredient, Recipe } from './recipe';

export class Pantry {
  private readonly stock = new Map<string, number>();

  constructor(items: [string, number][]) {
    for (const [name, amount] of items) this.stock.set(name, amount);
  }

  has(name: string, amount: number): boolean;
  has(ingredient: Ingredient): boolean;
  has(a: string | Ingredient, amount?: number): boolean {
    const name = typeof a === 'string' ? a : a.name;
    const need = typeof a === 'string' ? amount ?? 0 : a.qty.amount;
    const have = this.stock.get(name) ?? 0;
    if (have < need) console.log(`pantry: ${name} short by ${need - have}`);
    return have >= need;
  }

  shoppingList(recipe: Recipe): string[];
  shoppingList(recipe: Recipe, asText: true): string;
  shoppingList(recipe: Recipe, asText = false): string[] | string {
    const missing = recipe.ingredients.filter((i) => !this.has(i)).map((i) => `${i.qty.amount} ${i.qty.unit} ${i.name}`);
    if (!missing.length) console.info(`pantry: everything for ${recipe.name} is in`);
    return asText ? missing.join('; ') : missing;
  }
}
