// Test support: markdown parsed by a real CommonMark/GFM parser (Prettier's remark, already a dev dependency), to
// see what a renderer would make of the smoke's report and step summary: its nodes, flattened.
import * as prettier from 'prettier';

export interface MdNode {
  type: string;
  value?: string;
  url?: string;
  children?: MdNode[];
}

// Prettier's documented debugging entry point; its markdown parser gives remark's syntax tree (mdast).
const debug = (prettier as unknown as { __debug: { parse(text: string, options: object): Promise<{ ast: MdNode }> } })
  .__debug;

/** Every node of the parsed document, depth first. */
export async function markdownNodes(text: string): Promise<MdNode[]> {
  const { ast } = await debug.parse(text, { parser: 'markdown' });
  const all: MdNode[] = [];
  const walk = (node: MdNode) => {
    all.push(node);
    for (const child of node.children ?? []) walk(child);
  };
  walk(ast);
  return all;
}

/** Nodes a renderer turns into markup of the text's choosing: raw HTML, links, images, autolinks. */
export const ACTIVE_NODES = new Set(['html', 'link', 'image', 'linkReference', 'imageReference', 'definition']);
