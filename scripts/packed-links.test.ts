// Links of the packed READMEs: those to packed files stay, those to the rest of the repository become text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { relativeLinks, withPackedLinks } from './packed-links.ts';

const packed = new Set(['README.md', 'lib/README.md', 'smoke/README.md']);

test('a link to a packed file stays, resolved from the README that holds it', () => {
  const text = 'See [the CLI](../smoke/README.md) and [the front door](../README.md#as-a-package).';
  assert.is(withPackedLinks('lib/README.md', text, packed), text);
  assert.is(withPackedLinks('README.md', '[API](lib/README.md#api)', packed), '[API](lib/README.md#api)');
});

test('a link to a file the tarball lacks becomes text naming it in the repository', () => {
  assert.is(
    withPackedLinks('lib/README.md', 'read [the contract](../docs/contract.md#metrics) first', packed),
    'read the contract (repository: `docs/contract.md`) first',
  );
  assert.is(
    withPackedLinks('README.md', '[docs/containers.md](docs/containers.md).', packed),
    '`docs/containers.md` (in the repository).',
  );
  assert.is(withPackedLinks('README.md', '[`dev/`](dev/README.md)', packed), '`dev/` (repository: `dev/README.md`)');
});

test('URLs, same-page anchors and absolute paths are left alone', () => {
  const text = '[npm](https://www.npmjs.com/) [up](#api) [mail](mailto:a@b.c) [root](/etc/hosts)';
  assert.is(withPackedLinks('README.md', text, packed), text);
  assert.equal(relativeLinks('README.md', text), []);
});

test('relativeLinks lists targets resolved from the README, anchors left off', () => {
  assert.equal(relativeLinks('smoke/README.md', '[a](trailer/README.md#x) ![b](../docs/p.png)'), [
    'smoke/trailer/README.md',
    'docs/p.png',
  ]);
});

test.run();
