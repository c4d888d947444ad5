import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { DeskError, isDeskError } from "../../src/helper/desk-error.js";
import { helperSocketPath } from "../../src/helper/socket-path.js";

describe("helperSocketPath", () => {
  it("is helper.sock in DESKBOOK_HOME by default", () => {
    expect(helperSocketPath({ HOME: "/home/u" })).toBe("/home/u/.deskbook/helper.sock");
    expect(helperSocketPath({ HOME: "/home/u", DESKBOOK_HOME: "/srv/db" })).toBe("/srv/db/helper.sock");
  });

  it("takes an explicit home", () => {
    expect(helperSocketPath({}, "/tmp/h")).toBe("/tmp/h/helper.sock");
  });

  it("prefers DESKBOOK_SOCKET, expanding ~ and resolving relative paths", () => {
    expect(helperSocketPath({ DESKBOOK_SOCKET: "/run/x.sock" })).toBe("/run/x.sock");
    expect(helperSocketPath({ HOME: "/home/u", DESKBOOK_SOCKET: "~/s.sock" })).toBe("/home/u/s.sock");
    expect(helperSocketPath({ DESKBOOK_SOCKET: "rel.sock" })).toBe(resolve("rel.sock"));
    expect(helperSocketPath({ HOME: "/home/u", DESKBOOK_SOCKET: "  " })).toBe(join("/home/u/.deskbook", "helper.sock"));
  });
});

describe("DeskError", () => {
  it("names the code in its message and keeps the method", () => {
    const error = new DeskError("stale_index", "element 12 is gone; read the tree again", "performAction");
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("DeskError");
    expect(error.message).toBe("stale_index: element 12 is gone; read the tree again");
    expect(error.detail).toBe("element 12 is gone; read the tree again");
    expect(error.code).toBe("stale_index");
    expect(error.method).toBe("performAction");
    expect(isDeskError(error, "stale_index")).toBe(true);
    expect(isDeskError(error, "failed")).toBe(false);
  });

  it("does not repeat a code the helper already put in front", () => {
    expect(new DeskError("blocked", "blocked: Terminal is blocked").message).toBe("blocked: Terminal is blocked");
  });

  it("says something even without a message", () => {
    expect(new DeskError("failed", "", "ping").message).toBe("failed: ping failed");
  });
});
