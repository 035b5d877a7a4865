// Server text in markdown: always one piece of code, read by a real markdown parser as exactly that and nothing more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostileString, RAW_CONTROL } from '../test/support/hostile-text.ts';
import { ACTIVE_NODES, markdownNodes } from '../test/support/markdown-tree.ts';
import { markdownBlock, markdownCode } from './markdown-text.ts';
import { terminalText } from './terminal-text.ts';

test('code spans: a fence longer than any backtick run, padding only where CommonMark needs it', () => {
  assert.is(markdownCode('HTTP 503'), '`HTTP 503`');
  assert.is(markdownCode('a ` b'), '``a ` b``');
  assert.is(markdownCode('`x'), '`` `x ``');
  assert.is(markdownCode(' x '), '`  x  `');
  assert.is(markdownCode('<img src=x>\n# h'), '`<img src=x>\\n# h`');
  assert.is(markdownCode('a|b', { cell: true }), '`a\\|b`');
  assert.is(markdownBlock('a ``` b\nc\u001B'), '````\na ``` b\nc\\x1b\n````\n');
});

test('property: 400 hostile strings are each one code span (line, cell) or code block, nothing active', async () => {
  for (let seed = 1; seed <= 400; seed++) {
    const text = hostileString(seed);
    const shown = terminalText(text);
    const doc = [
      `- Reason: ${markdownCode(text)} (after 2 attempts)`,
      '',
      '| probe | details |',
      '|---|---|',
      `| READY | ${markdownCode(text, { cell: true })} |`,
      '',
      markdownBlock(text),
    ].join('\n');
    const why = `seed ${seed}: ${JSON.stringify(text)}\n${doc}`;
    assert.not.match(doc, RAW_CONTROL, why);
    const nodes = await markdownNodes(doc);
    assert.equal(
      nodes.filter((n) => ACTIVE_NODES.has(n.type)),
      [],
      why,
    );
    const spans = nodes.filter((n) => n.type === 'inlineCode').map((n) => n.value!.trim());
    assert.equal(spans, [shown.trim(), shown.trim()], why);
    assert.equal(
      nodes.filter((n) => n.type === 'code').map((n) => n.value),
      [text.split('\n').map(terminalText).join('\n')],
      why,
    );
    // Outside the code, only the document's own words and cells.
    const words = nodes.filter((n) => n.type === 'text').map((n) => n.value);
    assert.equal(words, ['Reason: ', ' (after 2 attempts)', 'probe', 'details', 'READY'], why);
  }
});

test.run();
