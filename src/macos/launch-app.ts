// Starts the macOS helper as an app through LaunchServices, so macOS charges its permissions to
// "Deskbook Helper" rather than to whatever terminal or Jupyter server started the kernel.
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { deskbookHome } from "../config/home.js";
import { DeskError } from "../helper/desk-error.js";
import { currentHelperAppState, type HelperAppState } from "./helper-app.js";
import { makeDirsSync } from "../make-dirs.js";

export interface LaunchCommand {
  command: string;
  args: string[];
}

/**
 * `open` does not pass environment variables to the app, so the home and the socket go as
 * arguments. `-n` starts a new instance even if one runs (on another socket, say): a second
 * helper on a taken socket exits by itself. `-g` keeps it in the background.
 */
export function macosLaunchCommand(appPath: string, home: string, socketPath: string, logPath: string): LaunchCommand {
  return {
    command: "open",
    args: ["-g", "-n", "-a", appPath, "--stdout", logPath, "--stderr", logPath, "--args", "--home", home, "--socket", socketPath],
  };
}

/** Refuses a missing or out-of-date bundle, with the command that fixes it. */
export function assertLaunchable(state: HelperAppState): void {
  if (state.state === "missing") {
    throw new DeskError("failed", `the macOS helper is not installed (${state.paths.app}): run "deskbook setup"`);
  }
  if (state.state === "stale") {
    throw new DeskError("failed", `the macOS helper was built from other source than this Deskbook's: run "deskbook setup" to rebuild it`);
  }
}

export async function launchMacHelper(socketPath: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const home = deskbookHome(env);
  const state = currentHelperAppState(home);
  assertLaunchable(state);
  makeDirsSync(dirname(socketPath), 0o700);
  const logPath = join(dirname(socketPath), "helper.log");
  // Created here with 0600: whether open(1) would create it, and with what mode, is not documented.
  closeSync(openSync(logPath, "a", 0o600));
  const { command, args } = macosLaunchCommand(state.paths.app, home, socketPath, logPath);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", (error) => reject(new DeskError("failed", `cannot run open: ${error.message}`)));
    child.once("close", (code) =>
      code === 0 ? resolve() : reject(new DeskError("failed", `open could not launch ${state.paths.app}: ${stderr.trim() || `status ${code}`}`)),
    );
  });
}
