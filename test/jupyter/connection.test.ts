import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConnectionFileError, endpoint, readConnectionFile } from "../../src/jupyter/connection.js";
import { writeConnectionFile } from "../../src/client/connection-file.js";

const valid = {
  transport: "tcp",
  ip: "127.0.0.1",
  shell_port: 50001,
  iopub_port: 50002,
  stdin_port: 50003,
  control_port: 50004,
  hb_port: 50005,
  key: "abc123",
  signature_scheme: "hmac-sha256",
  kernel_name: "deskbook",
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "deskbook-conn-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeJson(value: unknown): Promise<string> {
  const path = join(dir, "kernel.json");
  await writeFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

async function failure(value: unknown): Promise<ConnectionFileError> {
  const path = await writeJson(value);
  const err = await readConnectionFile(path).then(
    () => { throw new Error("expected readConnectionFile to fail"); },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectionFileError);
  expect((err as Error).message).toContain(path);
  return err as ConnectionFileError;
}

describe("readConnectionFile", () => {
  it("reads a valid file and ignores unknown fields", async () => {
    const info = await readConnectionFile(await writeJson({ ...valid, extra: "ignored" }));
    expect(info).toEqual(valid);
    expect(Object.keys(info)).not.toContain("extra");
  });

  it("accepts ipc transport, a missing kernel_name and an unsigned session", async () => {
    const { kernel_name: _unused, ...rest } = valid;
    const info = await readConnectionFile(
      await writeJson({ ...rest, transport: "ipc", ip: "/tmp/kern", key: "", signature_scheme: "" }),
    );
    expect(info.transport).toBe("ipc");
    expect(info.kernel_name).toBeUndefined();
    expect(info.key).toBe("");
  });

  it("reads what the test helper writes", async () => {
    const { path, info } = await writeConnectionFile(dir);
    expect(await readConnectionFile(path)).toEqual(info);
    const ports = [info.shell_port, info.iopub_port, info.stdin_port, info.control_port, info.hb_port];
    expect(new Set(ports).size).toBe(5);
    expect(info.key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports an unreadable file", async () => {
    const path = join(dir, "missing.json");
    await expect(readConnectionFile(path)).rejects.toThrow(
      new RegExp(`connection file ${path}: cannot read file`),
    );
  });

  it("reports invalid JSON and a non-object top level", async () => {
    expect((await failure("{ not json")).message).toMatch(/invalid JSON/);
    expect((await failure([valid])).message).toMatch(/top level must be a JSON object/);
  });

  const badFields: [string, unknown][] = [
    ["transport", "udp"],
    ["transport", undefined],
    ["ip", ""],
    ["ip", 127],
    ["shell_port", "50001"],
    ["iopub_port", -1],
    ["stdin_port", 65536],
    ["control_port", 1.5],
    ["hb_port", undefined],
    ["key", 42],
    ["key", undefined],
    ["signature_scheme", "md5"],
    ["signature_scheme", undefined],
    ["signature_scheme", ""],
    ["kernel_name", 3],
  ];
  for (const [field, value] of badFields) {
    it(`names the field when ${field} is ${JSON.stringify(value) ?? "missing"}`, async () => {
      const err = await failure({ ...valid, [field]: value });
      expect(err.message).toContain(`field "${field}"`);
    });
  }

  it("does not echo an invalid key value", async () => {
    const err = await failure({ ...valid, key: 123456789 });
    expect(err.message).not.toContain("123456789");
  });
});

describe("endpoint", () => {
  it("builds tcp and ipc addresses as jupyter_client does", () => {
    expect(endpoint({ transport: "tcp", ip: "127.0.0.1" }, 5555)).toBe("tcp://127.0.0.1:5555");
    expect(endpoint({ transport: "ipc", ip: "/tmp/kernel-1" }, 3)).toBe("ipc:///tmp/kernel-1-3");
  });
});
