/**
 * The per-kernel desktop's choices without a desktop: which mode a kernel runs in, where its
 * directory goes, what its executor's environment holds, and that a kernel with a bad
 * DESKBOOK_DESKTOP refuses to start with a clear error. The desktops themselves run in
 * test/linux/per-kernel-desktop.test.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { desktopHome } from "../../src/config/home.js";
import { desktopMode, kernelDesktopDirs, kernelIdFrom, openKernelDesktop } from "../../src/desktop/kernel-desktop.js";
import { DesktopModeError } from "../../src/desktop/desktop-mode-env.js";
import { serveKernel } from "../../src/cli/kernel.js";
import { helperSocketPath } from "../../src/helper/socket-path.js";
import { formatListing, listDesktops } from "../../src/desktop/desktop-list.js";
import { CLI } from "../support/kernel-process.js";

let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deskbook-kernel-desktop-"));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("desktopMode", () => {
  it("is shared by default, config.json's otherwise, and DESKBOOK_DESKTOP wins", async () => {
    expect(desktopMode(home, {})).toBe("shared");
    await writeFile(join(home, "config.json"), JSON.stringify({ desktop: "per-kernel" }));
    expect(desktopMode(home, {})).toBe("per-kernel");
    expect(desktopMode(home, { DESKBOOK_DESKTOP: "shared" })).toBe("shared");
    await writeFile(join(home, "config.json"), JSON.stringify({ desktop: "shared" }));
    expect(desktopMode(home, { DESKBOOK_DESKTOP: " per-kernel " })).toBe("per-kernel");
  });

  it("rejects an unknown DESKBOOK_DESKTOP with bad_config, and leaves a broken config.json to the cells", async () => {
    expect(() => desktopMode(home, { DESKBOOK_DESKTOP: "own" })).toThrow(DesktopModeError);
    expect(() => desktopMode(home, { DESKBOOK_DESKTOP: "own" })).toThrow(/"shared" or "per-kernel", not "own"/);
    await writeFile(join(home, "config.json"), "{ not json");
    expect(desktopMode(home, {})).toBe("shared");
  });
});

describe("kernelIdFrom", () => {
  it("reads Jupyter's kernel-<id>.json names, and nothing else", () => {
    expect(kernelIdFrom("/run/user/0/jupyter/runtime/kernel-3f2a9c1e-77b1-4bd5-a4c2-0c9d1e2f3a4b.json")).toBe("3f2a9c1e-77b1-4bd5-a4c2-0c9d1e2f3a4b");
    expect(kernelIdFrom("/tmp/connection.json")).toBeNull();
  });
});

describe("openKernelDesktop", () => {
  it("gives the executor its own desktop directory, and none of the outside display or buses", async () => {
    const desktop = await openKernelDesktop(home, "/x/kernel-abcdef0123.json", {
      DESKBOOK_HOME: home,
      DISPLAY: ":0",
      WAYLAND_DISPLAY: "wayland-0",
      XAUTHORITY: "/home/u/.Xauthority",
      DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1/bus",
      AT_SPI_BUS_ADDRESS: "unix:path=/run/user/1/at-spi/bus",
      DESKBOOK_SOCKET: join(home, "shared-helper.sock"),
      PATH: "/usr/bin",
    });
    try {
      expect(desktop.dir).toBe(join(home, "desktops", `abcdef01-${process.pid}`));
      expect(desktop.env).toEqual({ DESKBOOK_HOME: home, DESKBOOK_DESKTOP_DIR: desktop.dir, PATH: "/usr/bin" });
      // The helper and the desktop of that environment live in the kernel's directory; config stays in the home.
      expect(desktopHome(desktop.env)).toBe(desktop.dir);
      expect(helperSocketPath(desktop.env)).toBe(join(desktop.dir, "helper.sock"));
      const owner = JSON.parse(await readFile(join(desktop.dir, "owner.json"), "utf8"));
      expect(owner).toMatchObject({ version: 1, kernelId: "abcdef0123", pid: process.pid, connectionFile: "/x/kernel-abcdef0123.json" });
    } finally {
      await desktop.end();
    }
    expect(existsSync(desktop.dir)).toBe(false);
  });

  it("ends the desktops of kernels that died unwatched, and leaves a live kernel's alone", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const orphan = join(home, "desktops", "gone-1");
    const alive = join(home, "desktops", "live-2");
    for (const [dir, pid] of [[orphan, Number(dead.stdout)], [alive, process.ppid]] as const) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "owner.json"), JSON.stringify({ version: 1, kernelId: null, pid, connectionFile: "c", startedAt: "" }));
    }
    const desktop = await openKernelDesktop(home, "/x/c.json", {});
    await desktop.end();
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(alive)).toBe(true);
  });
});

describe("deskbook desktop list", () => {
  it("shows a kernel's desktop before its first desk call, and leaves out a dead kernel's", async () => {
    const desktop = await openKernelDesktop(home, "/x/kernel-0123abcd.json", {});
    const gone = join(home, "desktops", "gone-1");
    await mkdir(gone, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    await writeFile(join(gone, "owner.json"), JSON.stringify({ version: 1, kernelId: "x", pid: Number(dead.stdout), connectionFile: "c", startedAt: "" }));
    try {
      expect(await listDesktops(home)).toEqual([
        { kind: "per-kernel", dir: desktop.dir, kernelId: "0123abcd", kernelPid: process.pid, display: null, running: false, viewUrl: null },
      ]);
      expect(formatListing(await listDesktops(home))).toMatch(/^kernel 0123abcd \(pid \d+\)\s+not started yet\n$/);
    } finally {
      await desktop.end();
    }
    expect(formatListing(await listDesktops(join(home, "nothing")))).toBe("no desktops\n");
  });
});

describe("deskbook kernel with DESKBOOK_DESKTOP", () => {
  it("exits 2 with a clear message when it is neither shared nor per-kernel", async () => {
    const child = spawn(process.execPath, [CLI, "kernel", "-f", join(home, "kernel-x.json")], {
      env: { ...process.env, DESKBOOK_HOME: home, DESKBOOK_DESKTOP: "yes" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('DESKBOOK_DESKTOP must be "shared" or "per-kernel", not "yes"');
  });
});

describe("a per-kernel kernel whose start fails", () => {
  // In this process, not a spawned one: once a kernel process dies its reaper ends the desktop
  // anyway, so only a kernel that lives on shows whether the failed start ended it.
  const saved = { home: process.env.DESKBOOK_HOME, desktop: process.env.DESKBOOK_DESKTOP };
  afterEach(() => {
    for (const [name, value] of [["DESKBOOK_HOME", saved.home], ["DESKBOOK_DESKTOP", saved.desktop]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  const connection = (ip: string) =>
    JSON.stringify({ transport: "tcp", ip, shell_port: 50001, iopub_port: 50002, stdin_port: 50003, control_port: 50004, hb_port: 50005, key: "k", signature_scheme: "hmac-sha256" });

  it.each([
    ["its sockets cannot bind (an address not on this machine)", connection("10.255.255.1"), /EADDRNOTAVAIL|10\.255\.255\.1/],
    ["its connection file is not JSON", "{ not json", /invalid JSON/],
  ])("ends its own desktop when %s", async (_why, text, reason) => {
    process.env.DESKBOOK_HOME = home;
    process.env.DESKBOOK_DESKTOP = "per-kernel";
    const file = join(home, "kernel-0badstart.json");
    await writeFile(file, text);
    await expect(serveKernel(file)).rejects.toThrow(reason);
    expect(await kernelDesktopDirs(home)).toEqual([]);
  });
});
