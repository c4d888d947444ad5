// Before the virtual desktop goes, its apps are closed gracefully (close-app.ts: a close
// request, then SIGTERM, then SIGKILL), so none saves a "crashed" state for the next run.
// Only a helper already running is asked, and only about processes on this desktop's display:
// a helper that serves the user's own screen must not close the user's apps.
import { readFile } from "node:fs/promises";
import { HelperClient } from "../helper/client.js";
import { closeApp } from "../helper/close-app.js";
import { helperSocketPath } from "../helper/socket-path.js";

const CONNECT_MS = 1000;

/** Closes every app on `display` that the helper at `home` knows of; answers how many it asked to quit. */
export async function closeDesktopApps(home: string, display: string): Promise<number> {
  let client: HelperClient;
  try {
    client = await HelperClient.connect({ socketPath: helperSocketPath(process.env, home), clientName: "deskbook desktop stop", connectTimeoutMs: CONNECT_MS });
  } catch {
    return 0; // no helper: nothing was driving apps here
  }
  try {
    const running = (await client.request("listApps", {})).filter((app) => app.running && app.pid !== undefined);
    const onDisplay = (await Promise.all(running.map(async (app) => ((await displayOf(app.pid!)) === display ? app.pid! : null)))).filter((pid): pid is number => pid !== null);
    // A refusal (an app nobody approved) leaves that app to the desktop's own end.
    await Promise.all(onDisplay.map((pid) => closeApp(client, pid, "deskbook desktop stop").catch(() => undefined)));
    return onDisplay.length;
  } catch {
    return 0;
  } finally {
    await client.close();
  }
}

async function displayOf(pid: number): Promise<string | undefined> {
  const environ = await readFile(`/proc/${pid}/environ`, "utf8").catch(() => "");
  return environ.split("\0").find((entry) => entry.startsWith("DISPLAY="))?.slice("DISPLAY=".length);
}
