import { JUPYTER_PROTOCOL_VERSION } from "../jupyter/message.js";
import { DESKBOOK_VERSION } from "../version.js";
import type { KernelInfoReply } from "../jupyter/requests.js";

export function kernelInfoContent(): KernelInfoReply {
  return {
    status: "ok",
    protocol_version: JUPYTER_PROTOCOL_VERSION,
    implementation: "deskbook",
    implementation_version: DESKBOOK_VERSION,
    language_info: {
      name: "javascript",
      version: process.versions.node,
      mimetype: "text/javascript",
      file_extension: ".js",
      pygments_lexer: "javascript",
      codemirror_mode: "javascript",
      nbconvert_exporter: "script",
    },
    banner: `Deskbook ${DESKBOOK_VERSION} — JavaScript on Node ${process.versions.node} for desktop automation. Type help() for the reference.`,
    help_links: [
      { text: "Node.js", url: "https://nodejs.org/docs/latest-v20.x/api/" },
      { text: "JavaScript (MDN)", url: "https://developer.mozilla.org/en-US/docs/Web/JavaScript" },
    ],
    debugger: false,
  };
}
