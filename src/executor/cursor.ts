// Jupyter counts cursor positions in Unicode code points; JS strings index
// UTF-16 code units. Every position crossing that boundary goes through here.

/** UTF-16 index of code point offset `pos` in `text` (clamped to the text). */
export function codePointToUtf16(text: string, pos: number): number {
  let index = 0;
  for (let seen = 0; seen < pos && index < text.length; seen++) {
    index += isPairAt(text, index) ? 2 : 1;
  }
  return index;
}

/** Code point offset of UTF-16 index `idx` in `text`; an index inside a surrogate pair counts the pair. */
export function utf16ToCodePoint(text: string, idx: number): number {
  const end = Math.min(Math.max(idx, 0), text.length);
  let count = 0;
  for (let index = 0; index < end; count++) {
    index += isPairAt(text, index) ? 2 : 1;
  }
  return count;
}

function isPairAt(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  const low = text.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}
