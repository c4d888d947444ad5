/**
 * A cell's title: its first line that is a comment (`// compute 6 × 7` or `/* … *\/`).
 * Titles name cells in progress lines, in failure messages and as the action log's `step`.
 */
const MAX_TITLE = 80;

export function cellTitle(source: string): string | undefined {
  for (const raw of source.split("\n")) {
    const line = raw.trim();
    const comment = /^\/\/+(.*)$/.exec(line) ?? /^\/\*+(.*?)(\*+\/)?$/.exec(line);
    if (!comment) continue;
    const title = comment[1]!.trim();
    if (title === "") continue;
    return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
  }
  return undefined;
}
