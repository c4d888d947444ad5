// What desk.view() shows in the cell: a line that reads well as plain text (the URL and how
// to take over), and in frontends that render HTML, a link plus the live view in an iframe.

export interface ViewCellOptions {
  /** Let the person type and click in the view (default: watch only). */
  interactive?: boolean;
  /** Through jupyter-server-proxy: true for the server's base URL, or a base path like "/user/ada/". */
  proxy?: boolean | string;
  /** The iframe's height in CSS pixels (default 520). */
  height?: number;
}

export interface ShownView {
  url: string;
  display: string;
  interactive: boolean;
}

export function viewBundle(view: ShownView, height: number): Record<string, string> {
  const mode = view.interactive ? "you can click and type in it" : "watch only; desk.view({ interactive: true }) to take over";
  const plain = `Live view of the desktop ${view.display} (${mode}):\n${view.url}`;
  const href = escapeAttribute(view.url);
  const html =
    `<div class="deskbook-view"><p>Live view of the desktop ${escapeText(view.display)} (${escapeText(mode)}): ` +
    `<a href="${href}" target="_blank" rel="noopener">open it in a new tab</a></p>` +
    `<iframe src="${href}" title="Deskbook live view" style="width: 100%; height: ${Math.max(120, Math.round(height))}px; border: 1px solid #ccc"></iframe></div>`;
  return { "text/plain": plain, "text/html": html };
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeText(text).replace(/"/g, "&quot;");
}
