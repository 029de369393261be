/**
 * Text helpers for reading the interface document: its markdown blocks, and splitting
 * prose at separators that are not inside parentheses, braces or backticks.
 */

export interface Bullet {
  text: string;
  children: Bullet[];
}

export type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'bullets'; items: Bullet[] };

export interface Section {
  /** `1.1`, `2.7`, `4.11`, or the top-level number (`4`) for text before the first subsection. */
  number: string;
  title: string;
  blocks: Block[];
}

/** Splits the document into numbered sections and their paragraphs, tables and bullet lists. */
export function readSections(markdown: string): Section[] {
  const sections: Section[] = [];
  let current: Section | undefined;
  let bulletStack: { indent: number; bullet: Bullet }[] = [];
  const lastBlock = () => current?.blocks[current.blocks.length - 1];
  for (const rawLine of markdown.split('\n')) {
    const line = rawLine.replace(/\s+$/, '');
    const heading = /^#{2,3} (\d+(?:\.\d+)?)\.? (.*)$/.exec(line);
    if (heading) {
      current = { number: heading[1]!, title: heading[2]!, blocks: [] };
      sections.push(current);
      bulletStack = [];
      continue;
    }
    if (!current || line.trim() === '' || line.startsWith('#')) continue;
    const bullet = /^(\s*)- (.*)$/.exec(line);
    if (bullet) {
      const indent = bullet[1]!.length;
      const item: Bullet = { text: bullet[2]!, children: [] };
      while (bulletStack.length > 0 && bulletStack[bulletStack.length - 1]!.indent >= indent) bulletStack.pop();
      const parent = bulletStack[bulletStack.length - 1];
      if (parent) parent.bullet.children.push(item);
      else {
        const block = lastBlock();
        if (block?.kind === 'bullets') block.items.push(item);
        else current.blocks.push({ kind: 'bullets', items: [item] });
      }
      bulletStack.push({ indent, bullet: item });
      continue;
    }
    bulletStack = [];
    if (line.startsWith('|')) {
      const cells = line
        .slice(1, line.endsWith('|') ? -1 : undefined)
        .split('|')
        .map((cell) => cell.trim());
      if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
      const block = lastBlock();
      if (block?.kind === 'table') block.rows.push(cells);
      else current.blocks.push({ kind: 'table', rows: [cells] }); // first row: the header
      continue;
    }
    current.blocks.push({ kind: 'paragraph', text: line.trim() });
  }
  return sections;
}

const OPENERS: Record<string, string> = { '(': ')', '{': '}' };

/**
 * Splits `text` at any of `separators` found outside (), {} and `backticks`.
 * Separators are matched case-sensitively as written.
 */
export function splitTopLevel(text: string, separators: string[]): string[] {
  const parts: string[] = [];
  const closers: string[] = [];
  let inBackticks = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '`') inBackticks = !inBackticks;
    if (inBackticks) continue;
    if (OPENERS[ch]) closers.push(OPENERS[ch]!);
    else if (closers.length > 0 && ch === closers[closers.length - 1]) closers.pop();
    else if (closers.length === 0) {
      const separator = separators.find((sep) => text.startsWith(sep, i));
      if (separator) {
        parts.push(text.slice(start, i));
        i += separator.length - 1;
        start = i + 1;
      }
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The balanced group opening at `text[0]` (`(` or `{`): its inside and what follows it. */
export function takeGroup(text: string): { inside: string; after: string } {
  const closer = OPENERS[text[0]!];
  if (!closer) throw new Error(`expected a group at "${text}"`);
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === text[0]) depth++;
    else if (text[i] === closer && --depth === 0) return { inside: text.slice(1, i), after: text.slice(i + 1) };
  }
  throw new Error(`unbalanced "${text[0]}" in "${text}"`);
}

export const stripFinalPeriod = (text: string) => text.trim().replace(/\.$/, '').trim();
