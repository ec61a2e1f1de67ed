'use strict';

async function compile(file) {
  await null;
  if (file.endsWith('.bad')) throw new Error(`syntax error in ${file}`);
  return file.replace(/\.ts$/, '.js');
}

async function build(files) {
  console.group(`build (${files.length} files)`);
  for (const f of files) {
    try {
      const out = await compile(f);
      console.log('emitted', out);
    } catch (err) {
      console.error(`${err}`);
    }
  }
  console.groupEnd();
  console.log('build finished');
}

module.exports = { build };
