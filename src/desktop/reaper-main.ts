// `node reaper-main.js DIR`: what a per-kernel desktop's reaper runs once its kernel is gone
// without ending the desktop itself (src/desktop/kernel-desktop.ts).
import { isAbsolute } from "node:path";
import { endDesktopDirProcesses } from "../client/home-processes.js";

const dir = process.argv[2];
if (!dir || !isAbsolute(dir)) {
  process.stderr.write("usage: node reaper-main.js /ABSOLUTE/DESKTOP/DIR\n");
  process.exit(2);
}
await endDesktopDirProcesses(dir);
