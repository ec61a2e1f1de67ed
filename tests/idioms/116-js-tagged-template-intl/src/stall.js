'use strict';
const { fmt, eur, percent, kilos } = require('./format');

class Stall {
  constructor(name, prices) {
    this.name = name;
    this.prices = prices;
    this.sales = [];
  }

  sell(item, weightKg) {
    const price = this.prices[item];
    if (price === undefined) {
      console.warn(fmt`${this.name}: no price for ${item}, ${weightKg} kg not sold`);
      return 0;
    }
    const amount = price * weightKg;
    this.sales.push({ item, weightKg, amount });
    return amount;
  }

  reprice(item, price) {
    const delta = (price - this.prices[item]) / this.prices[item];
    this.prices[item] = price;
    console.log(`${item} now ${eur.format(price)}/kg (${delta > 0 ? '+' : ''}${(delta * 100).toFixed(1)}%)`);
  }

  close(day, costs) {
    const revenue = this.sales.reduce((s, x) => s + x.amount, 0);
    const weight = this.sales.reduce((s, x) => s + x.weightKg, 0);
    console.log(fmt`${this.name} closed: ${this.sales.length} sales, ${revenue} EUR`);
    const receipt = [`${this.name} ${day}`]
      .concat(this.sales.map((x) => `  ${x.item.padEnd(8)} ${kilos.format(x.weightKg).padStart(8)} ${eur.format(x.amount).padStart(9)}`))
      .concat([`  total    ${kilos.format(weight).padStart(8)} ${eur.format(revenue).padStart(9)}`]);
    console.log(receipt.join('\n'));
    if (revenue > 0) console.log(`${this.name} margin ${percent.format((revenue - costs) / revenue)} on ${eur.format(costs)} costs`);
    else console.error(`${this.name}: nothing sold on ${day}, ${eur.format(costs)} lost`);
    console.log(String.raw`export written to C:\markets\day-${day}\stall-${this.name}.csv`);
  }
}

module.exports = { Stall };
