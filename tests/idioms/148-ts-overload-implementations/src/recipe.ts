import { Quantity, quantity, toMetric } from './units';

export interface Ingredient {
  name: string;
  qty: Quantity;
}

export class Recipe {
  readonly ingredients: Ingredient[] = [];
  name: string;
  servings: number;

  constructor(name: string, servings: number);
  constructor(card: { title: string; serves: number });
  constructor(a: string | { title: string; serves: number }, servings?: number) {
    this.name = typeof a === 'string' ? a : a.title;
    this.servings = typeof a === 'string' ? servings ?? 1 : a.serves;
    if (this.servings <= 0) {
      console.warn(`${this.name}: ${this.servings} servings makes no sense, using 1`);
      this.servings = 1;
    }
  }

  add(line: string): this;
  add(name: string, amount: number, unit?: 'g' | 'ml'): this;
  add(a: string, amount?: number, unit?: 'g' | 'ml'): this {
    if (amount === undefined) {
      const [qtyText, ...words] = a.split(' of ');
      this.ingredients.push({ name: words.join(' of '), qty: toMetric(quantity(qtyText)) });
    } else {
      this.ingredients.push({ name: a, qty: quantity(amount, unit ?? 'g') });
    }
    return this;
  }
}

export function scale(recipe: Recipe, factor: number): Recipe;
export function scale(recipe: Recipe, target: { servings: number }): Recipe;
export function scale(recipe: Recipe, by: number | { servings: number }): Recipe {
  const factor = typeof by === 'number' ? by : by.servings / recipe.servings;
  const out = new Recipe(recipe.name, Math.round(recipe.servings * factor));
  for (const { name, qty } of recipe.ingredients) out.add(name, Math.round(qty.amount * factor), qty.unit as 'g' | 'ml');
  console.log(`${recipe.name} scaled x${factor.toFixed(2)}: ${recipe.servings} -> ${out.servings} servings`);
  if (factor > 4) console.warn(`${recipe.name}: scaling by more than 4 changes baking times`);
  return out;
}
