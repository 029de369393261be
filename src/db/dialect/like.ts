/** Escapes LIKE wildcards so search text is matched literally (PRODUCT §4). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
