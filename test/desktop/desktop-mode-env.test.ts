// DESKBOOK_DESKTOP read once, for the kernel (desktopMode) and for the CLI's early fork, which
// must not throw: a bad value comes back as the kernel's coded error.
import { describe, expect, it } from "vitest";
import { DesktopModeError, desktopModeFromEnv } from "../../src/desktop/desktop-mode-env.js";

describe("desktopModeFromEnv", () => {
  it("names the mode DESKBOOK_DESKTOP sets, trimmed, and nothing when it is unset or blank", () => {
    expect(desktopModeFromEnv({ DESKBOOK_DESKTOP: "shared" })).toBe("shared");
    expect(desktopModeFromEnv({ DESKBOOK_DESKTOP: " per-kernel " })).toBe("per-kernel");
    expect(desktopModeFromEnv({})).toBeUndefined();
    expect(desktopModeFromEnv({ DESKBOOK_DESKTOP: "  " })).toBeUndefined();
  });

  it("returns, not throws, a bad_config DesktopModeError naming the value for anything else", () => {
    const error = desktopModeFromEnv({ DESKBOOK_DESKTOP: "Per-Kernel" });
    expect(error).toBeInstanceOf(DesktopModeError);
    expect(error).toMatchObject({ code: "bad_config", name: "DesktopModeError", message: 'DESKBOOK_DESKTOP must be "shared" or "per-kernel", not "Per-Kernel"' });
  });
});
