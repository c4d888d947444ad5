// Gathers the facts `deskbook doctor` judges on macOS. Talking to the helper launches it when
// the bundle is current, as any desk call would.
import { HelperClient } from "../helper/client.js";
import type { PermissionsResult, PingResult } from "../helper/protocol.js";
import type { CommandRunner } from "./command-runner.js";
import type { MacFacts } from "./doctor-checks.js";
import { currentHelperAppState } from "./helper-app.js";
import { launchMacHelper } from "./launch-app.js";
import { findSigningIdentity } from "./signing-identity.js";

export async function gatherMacFacts(home: string, socketPath: string, run: CommandRunner): Promise<MacFacts> {
  const app = currentHelperAppState(home);
  const identity = await findSigningIdentity(run).catch((error: unknown) => ({ error: message(error) }));
  const launch = app.state === "current" ? () => launchMacHelper(socketPath) : undefined;
  let client: HelperClient | undefined;
  try {
    client = await HelperClient.connect({ socketPath, clientName: "deskbook doctor", connectTimeoutMs: launch ? 10_000 : 1_000, ...(launch && { launch }) });
    const ping: PingResult = await client.request("ping", {});
    const permissions: PermissionsResult = await client.request("permissions", {});
    return { app, identity, ping, permissions };
  } catch (error) {
    return { app, identity, ping: { error: message(error) }, permissions: undefined };
  } finally {
    await client?.close();
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
