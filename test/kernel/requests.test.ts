import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKernel, type RunningKernel } from "../support/kernel-process.js";
import { tempDir } from "../support/temp-dir.js";

let kernel: RunningKernel;
beforeAll(async () => {
  kernel = await startKernel();
});
afterAll(async () => {
  await kernel?.stop();
});

describe("requests other than execute", () => {
  it("answers kernel_info with the language and protocol", async () => {
    const reply = await kernel.client.request("shell", "kernel_info_request", {});
    expect(reply.content).toMatchObject({
      status: "ok",
      protocol_version: "5.3",
      implementation: "deskbook",
      debugger: false,
      language_info: {
        name: "javascript",
        version: process.versions.node,
        mimetype: "text/javascript",
        file_extension: ".js",
        pygments_lexer: "javascript",
        codemirror_mode: "javascript",
      },
    });
    expect(String(reply.content.banner)).toContain("Deskbook");
    expect(Array.isArray(reply.content.help_links)).toBe(true);
  });

  it("completes from live session objects", async () => {
    await kernel.client.execute("const myVariable = { alpha: 1, beta: 2 }");
    const code = "myVar";
    const reply = await kernel.client.request("shell", "complete_request", { code, cursor_pos: code.length });
    expect(reply.content).toMatchObject({ status: "ok", cursor_start: 0, cursor_end: 5 });
    expect(reply.content.matches).toContain("myVariable");
    const member = "myVariable.al";
    const props = await kernel.client.request("shell", "complete_request", { code: member, cursor_pos: member.length });
    expect(props.content).toMatchObject({ matches: ["alpha"], cursor_start: 11, cursor_end: 13 });
  });

  it("inspects a value", async () => {
    await kernel.client.execute("function area(width, height = 1) { return width * height }");
    const reply = await kernel.client.request("shell", "inspect_request", { code: "area", cursor_pos: 4, detail_level: 0 });
    expect(reply.content.status).toBe("ok");
    expect(reply.content.found).toBe(true);
    const data = reply.content.data as Record<string, string>;
    expect(data["text/plain"]).toContain("area(width, height = 1)");
    expect(data["text/markdown"]).toBeTruthy();
  });

  it("answers is_complete from the parser", async () => {
    const ask = async (code: string) => (await kernel.client.request("shell", "is_complete_request", { code })).content;
    expect(await ask("1 + 1")).toEqual({ status: "complete" });
    expect(await ask("function f() {")).toMatchObject({ status: "incomplete", indent: "  " });
    expect(await ask("let = = 1")).toEqual({ status: "invalid" });
  });

  it("answers comm_info and closes comms for unknown targets", async () => {
    const info = await kernel.client.request("shell", "comm_info_request", {});
    expect(info.content).toEqual({ status: "ok", comms: {} });
    const open = kernel.client.newRequest("comm_open", { comm_id: "c1", target_name: "nothing.here", data: {} });
    await kernel.client.send("shell", open);
    const closed = await kernel.client.waitForIopub((m) => m.header.msg_type === "comm_close");
    expect(closed.content).toMatchObject({ comm_id: "c1" });
  });

  it("answers an unknown request with an error reply", async () => {
    const reply = await kernel.client.request("shell", "frobnicate_request", {});
    expect(reply.header.msg_type).toBe("frobnicate_reply");
    expect(reply.content).toMatchObject({ status: "error", ename: "UnknownMessageType" });
  });

  it("refuses a request whose content has the wrong types, naming the field, and runs nothing of it", async () => {
    const bad = await kernel.client.request("shell", "execute_request", { code: 42, silent: false });
    expect(bad.content).toMatchObject({ status: "error", ename: "BadRequest", evalue: "execute_request: content.code must be a string, not number 42" });
    const expressions = await kernel.client.request("shell", "execute_request", { code: "1", user_expressions: "abc" });
    expect(expressions.content).toMatchObject({ status: "error", ename: "BadRequest" });
    expect(String(expressions.content.evalue)).toContain("content.user_expressions");
    const missing = await kernel.client.request("shell", "complete_request", { cursor_pos: 1 });
    expect(missing.content).toMatchObject({ status: "error", ename: "BadRequest", evalue: "complete_request needs content.code (a string)" });
    // Neither ran, so the execution count did not move.
    const { reply } = await kernel.client.execute("'counted'");
    const again = await kernel.client.execute("'counted again'");
    expect(again.reply.content.execution_count).toBe((reply.content.execution_count as number) + 1);
  });

  it("does not shut down on a shutdown_request with bad content", async () => {
    const reply = await kernel.client.request("control", "shutdown_request", { restart: "yes" });
    expect(reply.content).toMatchObject({ status: "error", ename: "BadRequest" });
    expect((await kernel.client.request("shell", "kernel_info_request", {})).content.status).toBe("ok");
    expect(kernel.process.exitCode).toBeNull();
  });

  it("answers message types named like Object's members as unknown", async () => {
    for (const msgType of ["constructor", "hasOwnProperty", "__proto__", "toString_request"]) {
      if (!msgType.endsWith("_request")) {
        await kernel.client.send("shell", kernel.client.newRequest(msgType, {}));
        continue;
      }
      const reply = await kernel.client.request("shell", msgType, {});
      expect(reply.content).toMatchObject({ status: "error", ename: "UnknownMessageType" });
    }
    expect((await kernel.client.request("shell", "kernel_info_request", {})).content.status).toBe("ok");
    expect(kernel.stderr()).not.toMatch(/failed: TypeError/);
  });

  it("keeps history across kernel restarts", async () => {
    const home = await tempDir("deskbook-history-");
    const first = await startKernel({ home });
    await first.client.execute("const h1 = 'first session'");
    await first.client.execute("6 * 7");
    await first.stop();
    const second = await startKernel({ home });
    try {
      await second.client.execute("'second session'");
      const tail = await second.client.request("shell", "history_request", { hist_access_type: "tail", n: 3, output: true, raw: true });
      expect(tail.content.status).toBe("ok");
      const history = tail.content.history as [number, number, [string, string | null]][];
      expect(history.map((h) => h[2][0])).toEqual(["const h1 = 'first session'", "6 * 7", "'second session'"]);
      expect(history[1]![2][1]).toBe("42");
      const previous = await second.client.request("shell", "history_request", { hist_access_type: "range", session: -1, start: 1, stop: null, output: false, raw: true });
      expect((previous.content.history as unknown[]).length).toBe(2);
      const search = await second.client.request("shell", "history_request", { hist_access_type: "search", pattern: "6*", n: 10, unique: true, output: false, raw: true });
      expect((search.content.history as [number, number, string][]).map((h) => h[2])).toEqual(["6 * 7"]);
    } finally {
      await second.stop();
    }
  });

  it("shuts down on request and exits", async () => {
    const own = await startKernel();
    const exited = new Promise<number | null>((resolve) => own.process.once("exit", (code) => resolve(code)));
    const reply = await own.client.request("control", "shutdown_request", { restart: false });
    expect(reply.content).toEqual({ status: "ok", restart: false });
    expect(await exited).toBe(0);
    await own.stop();
  });
});
