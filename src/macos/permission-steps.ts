// The three macOS permissions the helper needs, in the order setup asks for them, with where
// each is switched on. The deep links use the Security pane's `Privacy_*` anchors, which many
// macOS apps open; Apple does not document them, and they have not been tried here on a Mac.
import type { PermissionsParams, PermissionsResult } from "../helper/protocol.js";

export type PermissionKey = "accessibility" | "screenRecording" | "inputMonitoring";

export interface PermissionStep {
  key: PermissionKey;
  title: string;
  /** The pane, spelled as System Settings shows it. */
  settingsPath: string;
  settingsUrl: string;
  why: string;
  /** Sent to `permissions` to have macOS show its own prompt. */
  request: PermissionsParams;
  /** Setup still succeeds without it. */
  optional: boolean;
  /** The running process may only see the grant after a restart. */
  seenAfterRestart: boolean;
}

const PRIVACY_PANE = "x-apple.systempreferences:com.apple.preference.security";

export const PERMISSION_STEPS: readonly PermissionStep[] = [
  {
    key: "accessibility",
    title: "Accessibility",
    settingsPath: "System Settings → Privacy & Security → Accessibility",
    settingsUrl: `${PRIVACY_PANE}?Privacy_Accessibility`,
    why: "to read apps' windows and controls and to click and type into them",
    request: { prompt: "accessibility" },
    optional: false,
    seenAfterRestart: false,
  },
  {
    key: "screenRecording",
    title: "Screen Recording",
    settingsPath: "System Settings → Privacy & Security → Screen Recording (\"Screen & System Audio Recording\" on macOS 15)",
    settingsUrl: `${PRIVACY_PANE}?Privacy_ScreenCapture`,
    why: "to take screenshots of windows",
    request: { prompt: "screenRecording" },
    optional: false,
    seenAfterRestart: true,
  },
  {
    key: "inputMonitoring",
    title: "Input Monitoring",
    settingsPath: "System Settings → Privacy & Security → Input Monitoring",
    settingsUrl: `${PRIVACY_PANE}?Privacy_ListenEvent`,
    why: "to notice Escape, which stops a running cell (optional: without it, use the notebook's interrupt)",
    request: { prompt: "inputMonitoring" },
    optional: true,
    seenAfterRestart: true,
  },
];

export function isGranted(result: PermissionsResult, key: PermissionKey): boolean {
  return result[key];
}
