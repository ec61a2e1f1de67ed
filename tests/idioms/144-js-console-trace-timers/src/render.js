'use strict';

function render(image, size) {
  if (!image.width) throw new Error(`${image.src} has no pixels`);
  const scale = size / Math.max(image.width, image.height);
  let checksum = 0;
  for (let i = 0; i < 2000; i++) checksum = (checksum * 31 + i) % 65521;
  return { src: image.src, width: Math.round(image.width * scale), height: Math.round(image.height * scale), checksum };
}

module.exports = { render };
