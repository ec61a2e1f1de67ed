const H = require('recorder');
H.setup(__dirname + '/src');
const { Recipe, scale } = require(H.compiled('recipe'));
const { Pantry } = require(H.compiled('pantry'));
[
  [['Scones', 8], ['500 g of flour', '2 tsp of baking powder'], 2, [['flour', 2000], ['baking powder', 50], ['butter', 500]]],
  [[{ title: 'Pancakes', serves: 4 }], ['1 cup of milk', '2 tbsp of sugar'], { servings: 6 }, [['milk', 200], ['sugar', 100]]],
  [['Brioche', 0], ['250 g of flour', 'a pinch of salt'], 5, [['flour', 1000], ['butter', 1000]]],
  [[{ title: 'Shortbread', serves: 12 }], ['300 g of flour', '100 g of sugar'], { servings: 6 }, []],
].forEach(([ctorArgs, lines, by, stock], c) => {
  H.case(c);
  const r = new Recipe(...ctorArgs);
  for (const l of lines) r.add(l);
  r.add('butter', 100);
  const p = new Pantry(stock);
  p.shoppingList(scale(r, by), true);
  p.has('eggs', 2);
});
H.write();
