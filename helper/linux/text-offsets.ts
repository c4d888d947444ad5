// The protocol counts text offsets in UTF-16 code units (JavaScript strings, macOS
// AXSelectedTextRange); AT-SPI counts characters (code points). They differ after any
// character outside the Basic Multilingual Plane (emoji, some CJK).

/** Code points in text[0, utf16Offset). */
export function toCharOffset(text: string, utf16Offset: number): number {
  let chars = 0;
  for (let unit = 0; unit < utf16Offset && unit < text.length; chars++) {
    const code = text.codePointAt(unit) ?? 0;
    unit += code > 0xffff ? 2 : 1;
  }
  // Offsets past the end stay past the end, as AT-SPI clamps them itself.
  return chars + Math.max(utf16Offset - text.length, 0);
}

/** UTF-16 code units in the first `charOffset` code points of text. */
export function toUtf16Offset(text: string, charOffset: number): number {
  let unit = 0;
  for (let chars = 0; chars < charOffset && unit < text.length; chars++) {
    const code = text.codePointAt(unit) ?? 0;
    unit += code > 0xffff ? 2 : 1;
  }
  return unit;
}
