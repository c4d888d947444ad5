// `deskbook setup`'s walk through the permissions, one at a time: ask macOS to prompt, open the
// pane, then poll the helper until the switch is on or the wait runs out.
import type { PermissionsParams, PermissionsResult } from "../helper/protocol.js";
import { HELPER_NAME } from "./info-plist.js";
import { isGranted, PERMISSION_STEPS, type PermissionStep } from "./permission-steps.js";

export interface PermissionWalkDeps {
  /** The helper's `permissions` method. */
  permissions: (params: PermissionsParams) => Promise<PermissionsResult>;
  /** Quits the helper; the next `permissions` call relaunches it. */
  restartHelper: () => Promise<void>;
  openUrl: (url: string) => Promise<void>;
  print: (text: string) => void;
  sleep: (ms: number) => Promise<void>;
  pollMs: number;
  /** How long to wait for a required permission, and for the optional one. */
  waitMs: number;
  optionalWaitMs: number;
  /** The bundle, for users who have to add it to the list by hand. */
  appPath: string;
}

export interface PermissionWalkResult {
  final: PermissionsResult;
  /** Required permissions still off. */
  missing: string[];
}

export async function walkPermissions(deps: PermissionWalkDeps, steps: readonly PermissionStep[] = PERMISSION_STEPS): Promise<PermissionWalkResult> {
  for (const step of steps) await walkStep(step, deps);
  const final = await deps.permissions({});
  const missing = steps.filter((step) => !step.optional && !isGranted(final, step.key)).map((step) => step.title);
  return { final, missing };
}

async function walkStep(step: PermissionStep, deps: PermissionWalkDeps): Promise<void> {
  if (isGranted(await deps.permissions({}), step.key)) {
    deps.print(`ok       ${step.title}`);
    return;
  }
  deps.print(instructions(step, deps.appPath));
  await deps.permissions(step.request);
  await deps.openUrl(step.settingsUrl).catch(() => deps.print(`         (could not open System Settings; go there by hand)`));
  if (await pollUntilGranted(step, deps)) {
    deps.print(`ok       ${step.title}: granted`);
    return;
  }
  deps.print(step.optional ? `skipped  ${step.title}: not granted (optional)` : `MISSING  ${step.title}: not granted`);
}

/** Polls; a grant a running process cannot see yet gets one restart at the end of the wait. */
async function pollUntilGranted(step: PermissionStep, deps: PermissionWalkDeps): Promise<boolean> {
  const rounds = Math.max(1, Math.ceil((step.optional ? deps.optionalWaitMs : deps.waitMs) / deps.pollMs));
  for (let round = 0; round < rounds; round++) {
    await deps.sleep(deps.pollMs);
    if (isGranted(await deps.permissions({}), step.key)) return true;
  }
  if (!step.seenAfterRestart) return false;
  deps.print(`         restarting ${HELPER_NAME} in case the switch is on but the running helper cannot see it yet`);
  await deps.restartHelper();
  return isGranted(await deps.permissions({}), step.key);
}

export function instructions(step: PermissionStep, appPath: string): string {
  return [
    `${step.optional ? "optional" : "needed  "} ${step.title}: ${HELPER_NAME} needs it ${step.why}.`,
    `         macOS may show a prompt now; otherwise switch on "${HELPER_NAME}" in`,
    `         ${step.settingsPath}`,
    `         (opening it for you). If it is not listed, add it with + : ${appPath}`,
    `         If macOS offers "Quit & Reopen", either answer is fine: setup reconnects. Waiting…`,
  ].join("\n");
}
