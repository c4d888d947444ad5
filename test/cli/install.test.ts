import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KERNEL_NODE_FLAGS } from "../../src/kernel/node-flags.js";
import { HANDOFF_SHELL_ARGV } from "../../src/kernel/extra-ca-handoff.js";
import {
  dataDirFor,
  install,
  kernelJson,
  parseInstallArgs,
  pythonFromLauncher,
  type InstallContext,
} from "../../src/cli/install.js";

const execFileAsync = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const mainJs = join(repoRoot, "dist", "src", "cli", "main.js");

function onPath(command: string): boolean {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

interface Captured {
  ctx: Partial<InstallContext>;
  out: string[];
  err: string[];
}

function capture(extra: Partial<InstallContext> = {}): Captured {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, ctx: { stdout: (t) => out.push(t), stderr: (t) => err.push(t), ...extra } };
}

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), "deskbook-install-"));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("parseInstallArgs", () => {
  it("defaults to a user install named deskbook", () => {
    expect(parseInstallArgs([])).toEqual({
      target: { kind: "user" },
      name: "deskbook",
      displayName: "Deskbook (JavaScript)",
      perKernelDesktop: false,
      gateway: false,
    });
  });

  it("--per-kernel-desktop names a second kernelspec, unless told another name", () => {
    expect(parseInstallArgs(["--per-kernel-desktop"])).toEqual({
      target: { kind: "user" },
      name: "deskbook-per-kernel",
      displayName: "Deskbook (JavaScript, own desktop)",
      perKernelDesktop: true,
      gateway: false,
    });
    expect(parseInstallArgs(["--per-kernel-desktop", "--name", "desk-own", "--display-name", "Own"])).toMatchObject({ name: "desk-own", displayName: "Own", perKernelDesktop: true });
  });

  it("--gateway names the Enterprise Gateway kernelspec, whose kernels have their own desktop", () => {
    expect(parseInstallArgs(["--gateway", "--prefix", "/opt/eg"])).toEqual({
      target: { kind: "prefix", dir: "/opt/eg" },
      name: "deskbook-gateway",
      displayName: "Deskbook (JavaScript, Enterprise Gateway)",
      perKernelDesktop: true,
      gateway: true,
    });
    expect(parseInstallArgs(["--gateway", "--name", "eg-desk"])).toMatchObject({ name: "eg-desk", gateway: true });
  });

  it("reads every flag, with separate or = values", () => {
    expect(parseInstallArgs(["--prefix", "/opt/x", "--name", "db2", "--display-name", "Desk 2"])).toEqual({
      target: { kind: "prefix", dir: "/opt/x" },
      name: "db2",
      displayName: "Desk 2",
      perKernelDesktop: false,
      gateway: false,
    });
    expect(parseInstallArgs(["--sys-prefix", "--name=a.b_c-1", "--display-name=X = Y"])).toEqual({
      target: { kind: "sys-prefix" },
      name: "a.b_c-1",
      displayName: "X = Y",
      perKernelDesktop: false,
      gateway: false,
    });
    expect(parseInstallArgs(["--user", "--user"])).toMatchObject({ target: { kind: "user" } });
    expect(parseInstallArgs(["--name", "x", "-h"])).toBe("help");
  });

  it.each([
    [["--user", "--sys-prefix"], /mutually exclusive/],
    [["--prefix", "/a", "--user"], /mutually exclusive/],
    [["--prefix"], /--prefix needs a value/],
    [["--name", "--user"], /--name needs a value/],
    [["--name="], /--name needs a value/],
    [["--user=yes"], /--user takes no value/],
    [["--per-kernel-desktop=yes"], /--per-kernel-desktop takes no value/],
    [["--gateway=local"], /--gateway takes no value/],
    [["--gateway", "--per-kernel-desktop"], /--gateway already gives every kernel its own desktop/],
    [["--name", "has space"], /may contain only/],
    [["--name", "../escape"], /may contain only/],
    [["--display-name", " "], /must not be blank/],
    [["--frobnicate"], /unknown argument "--frobnicate"/],
    [["extra"], /unknown argument "extra"/],
  ])("rejects %j", (args, message) => {
    expect(() => parseInstallArgs(args)).toThrow(message);
  });
});

describe("kernelJson", () => {
  it("launches this install's main.js with the running node, through sh off Windows", () => {
    expect(kernelJson({ nodePath: "/n/node", mainPath: "/r/dist/src/cli/main.js", platform: "linux" })).toEqual({
      argv: [...HANDOFF_SHELL_ARGV, "/n/node", ...KERNEL_NODE_FLAGS, "/r/dist/src/cli/main.js", "kernel", "-f", "{connection_file}"],
      display_name: "Deskbook (JavaScript)",
      language: "javascript",
      interrupt_mode: "message",
      env: {},
      metadata: { debugger: false },
    });
    expect(kernelJson({ nodePath: "C:\\node.exe", mainPath: "m", platform: "win32" }).argv).toEqual(["C:\\node.exe", ...KERNEL_NODE_FLAGS, "m", "kernel", "-f", "{connection_file}"]);
    expect(kernelJson({ nodePath: "n", mainPath: "m", displayName: "Other" }).display_name).toBe("Other");
    expect(kernelJson({ nodePath: "n", mainPath: "m", perKernelDesktop: true }).env).toEqual({ DESKBOOK_DESKTOP: "per-kernel" });
  });

  it("names Enterprise Gateway's LocalProcessProxy for --gateway, with a desktop per kernel", () => {
    const spec = kernelJson({ nodePath: "n", mainPath: "m", gateway: true });
    expect(spec.metadata).toEqual({ debugger: false, process_proxy: { class_name: "enterprise_gateway.services.processproxies.processproxy.LocalProcessProxy" } });
    expect(spec.env).toEqual({ DESKBOOK_DESKTOP: "per-kernel" });
    expect(spec.argv.slice(-3)).toEqual(["kernel", "-f", "{connection_file}"]);
  });
});

describe("dataDirFor", () => {
  const base = { env: {}, platform: "linux" as const, homeDir: "/home/ada" };

  it("puts user installs where jupyter_core looks on each platform", () => {
    const user = { kind: "user" } as const;
    expect(dataDirFor(user, base)).toBe("/home/ada/.local/share/jupyter");
    expect(dataDirFor(user, { ...base, env: { XDG_DATA_HOME: "/xdg" } })).toBe("/xdg/jupyter");
    expect(dataDirFor(user, { ...base, env: { JUPYTER_DATA_DIR: "/jd", XDG_DATA_HOME: "/xdg" } })).toBe("/jd");
    expect(dataDirFor(user, { ...base, platform: "darwin" })).toBe("/home/ada/Library/Jupyter");
  });

  it("uses DIR/share/jupyter for --prefix and sys.prefix for --sys-prefix", () => {
    expect(dataDirFor({ kind: "prefix", dir: "/opt/env" }, base)).toBe("/opt/env/share/jupyter");
    expect(dataDirFor({ kind: "prefix", dir: "rel" }, base)).toBe(resolve("rel/share/jupyter"));
    expect(dataDirFor({ kind: "sys-prefix" }, { ...base, sysPrefix: "/usr" })).toBe("/usr/share/jupyter");
    expect(() => dataDirFor({ kind: "sys-prefix" }, base)).toThrow(/sys.prefix/);
  });
});

describe("pythonFromLauncher", () => {
  it.each([
    ["#!/usr/bin/python3\nimport sys", "/usr/bin/python3"],
    ["#! /opt/conda/bin/python3.11 -E\n", "/opt/conda/bin/python3.11"],
    ["#!/usr/bin/env python3\n", "python3"],
    ["#!/usr/bin/env -S PYTHONUTF8=1 python3 -u\n", "python3"],
    ["#!/bin/sh\n'''exec' \"/very/long/venv/bin/python\" \"$0\" \"$@\"\n' '''\n", "/very/long/venv/bin/python"],
    ["\x7fELF binary", null],
    ["#!/bin/sh\nexec something", "/bin/sh"],
  ])("%j -> %s", (script, expected) => {
    expect(pythonFromLauncher(script)).toBe(expected);
  });
});

describe("install", () => {
  it("writes kernel.json and the logos under --prefix", async () => {
    const { ctx, out, err } = capture();
    expect(await install(["--prefix", tmp], ctx)).toBe(0);

    const kernelDir = join(tmp, "share", "jupyter", "kernels", "deskbook");
    const spec = JSON.parse(await readFile(join(kernelDir, "kernel.json"), "utf8"));
    expect(spec).toEqual({
      argv: [...HANDOFF_SHELL_ARGV, process.execPath, ...KERNEL_NODE_FLAGS, mainJs, "kernel", "-f", "{connection_file}"],
      display_name: "Deskbook (JavaScript)",
      language: "javascript",
      interrupt_mode: "message",
      env: {},
      metadata: { debugger: false },
    });
    expect((await readdir(kernelDir)).sort()).toEqual([
      "kernel.json",
      "logo-32x32.png",
      "logo-64x64.png",
      "logo-svg.svg",
    ]);
    for (const [copy, original] of [
      ["logo-32x32.png", "logo-32x32.png"],
      ["logo-64x64.png", "logo-64x64.png"],
      ["logo-svg.svg", "logo.svg"],
    ]) {
      expect(await readFile(join(kernelDir, copy!))).toEqual(await readFile(join(repoRoot, "kernelspec", original!)));
    }
    expect(out.join("")).toContain(`in ${kernelDir}`);
    expect(out.join("")).toContain(`JUPYTER_PATH=${join(tmp, "share", "jupyter")} jupyter kernelspec list`);
    // The only stderr allowed is the reminder to build when dist/ is missing.
    expect(err.join("")).toMatch(/^(|warning: .*npm run build.*\n)$/);
  });

  it("ships logos of exactly 32x32 and 64x64", async () => {
    for (const size of [32, 64]) {
      const meta = await sharp(join(repoRoot, "kernelspec", `logo-${size}x${size}.png`)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["png", size, size]);
    }
  });

  it("honours --name and --display-name, and overwrites an earlier install", async () => {
    const { ctx } = capture();
    expect(await install(["--prefix", tmp, "--name", "desk-two"], ctx)).toBe(0);
    expect(await install(["--prefix", tmp, "--name", "desk-two", "--display-name", "Desk Two"], ctx)).toBe(0);
    const spec = JSON.parse(await readFile(join(tmp, "share/jupyter/kernels/desk-two/kernel.json"), "utf8"));
    expect(spec.display_name).toBe("Desk Two");
  });

  it("installs for the user into JUPYTER_DATA_DIR by default", async () => {
    const { ctx, out } = capture({ env: { JUPYTER_DATA_DIR: join(tmp, "data") } });
    expect(await install([], ctx)).toBe(0);
    const spec = JSON.parse(await readFile(join(tmp, "data", "kernels", "deskbook", "kernel.json"), "utf8"));
    expect(spec.language).toBe("javascript");
    expect(out.join("")).toContain("Verify with: jupyter kernelspec list");
  });

  it("resolves --sys-prefix through the python behind the jupyter on PATH", async () => {
    const bin = join(tmp, "bin");
    const prefix = join(tmp, "venv");
    await mkdir(bin);
    // A stand-in interpreter that answers the sys.prefix query like Python would.
    await writeFile(join(bin, "fakepython"), `#!/bin/sh\necho "${prefix}"\n`);
    await writeFile(join(bin, "jupyter"), `#!/usr/bin/env fakepython\n`);
    await chmod(join(bin, "fakepython"), 0o755);
    await chmod(join(bin, "jupyter"), 0o755);

    const { ctx, err } = capture({ env: { PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin` } });
    expect(await install(["--sys-prefix"], ctx)).toBe(0);
    const spec = JSON.parse(await readFile(join(prefix, "share/jupyter/kernels/deskbook/kernel.json"), "utf8"));
    expect(spec.argv[HANDOFF_SHELL_ARGV.length + 1 + KERNEL_NODE_FLAGS.length]).toBe(mainJs);
    expect(err.join("")).not.toMatch(/cannot determine/);
  });

  it("exits 2 with usage on stderr for bad flags, writing nothing", async () => {
    const { ctx, out, err } = capture();
    expect(await install(["--prefix", tmp, "--bogus"], ctx)).toBe(2);
    expect(err.join("")).toContain('unknown argument "--bogus"');
    expect(err.join("")).toContain("usage: deskbook install");
    expect(out).toEqual([]);
    expect(await readdir(tmp)).toEqual([]);
  });

  it("prints usage to stdout and exits 0 for --help", async () => {
    const { ctx, out, err } = capture();
    expect(await install(["--help"], ctx)).toBe(0);
    expect(out.join("")).toMatch(/^usage: deskbook install \[--user \| --sys-prefix \| --prefix DIR\]/);
    expect(err).toEqual([]);
  });

  it("exits 1 with a message when the target cannot be written", async () => {
    const blocker = join(tmp, "file");
    await writeFile(blocker, "");
    const { ctx, err } = capture();
    expect(await install(["--prefix", blocker], ctx)).toBe(1);
    expect(err.join("")).toMatch(/^deskbook install: cannot create .*kernels\/deskbook/);
  });

  it.skipIf(!onPath("jupyter"))("is listed by the real `jupyter kernelspec list`", async () => {
    const { ctx } = capture();
    expect(await install(["--prefix", tmp, "--name", "deskbook-test-install"], ctx)).toBe(0);
    const dataDir = join(tmp, "share", "jupyter");
    const { stdout } = await execFileAsync("jupyter", ["kernelspec", "list", "--json"], {
      env: { ...process.env, JUPYTER_PATH: dataDir, JUPYTER_DATA_DIR: join(tmp, "empty-user-dir") },
    });
    const listed = JSON.parse(stdout).kernelspecs["deskbook-test-install"];
    expect(listed).toBeDefined();
    expect(listed.resource_dir).toBe(join(dataDir, "kernels", "deskbook-test-install"));
    expect(listed.spec.display_name).toBe("Deskbook (JavaScript)");
    expect(listed.spec.language).toBe("javascript");
    expect(listed.spec.interrupt_mode).toBe("message");
    expect(listed.spec.argv).toEqual([...HANDOFF_SHELL_ARGV, process.execPath, ...KERNEL_NODE_FLAGS, mainJs, "kernel", "-f", "{connection_file}"]);
  });
});
