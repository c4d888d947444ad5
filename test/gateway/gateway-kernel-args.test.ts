/**
 * The parts of `deskbook gateway-kernel` that take input from outside: its arguments (or the
 * kernel pod's environment), EG's port range and the requests on its comm port. Bad input is
 * a clear error naming what is wrong; picking ports inside the range is in
 * test/client/free-ports.test.ts, the end-to-end run with Enterprise Gateway in
 * enterprise-gateway.test.ts.
 */
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { parseGatewayKernelArgs } from "../../src/cli/gateway-kernel.js";
import { parseRequest, serveCommRequests } from "../../src/gateway/comm-listener.js";
import { parsePortRange } from "../../src/gateway/port-range.js";

const KEY = "MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQC";
const ID = "0b7a2c1e-3f4d-4e5f-8a9b-0c1d2e3f4a5b";

describe("parseGatewayKernelArgs", () => {
  it("reads EG's flags, with separate or = values", () => {
    expect(parseGatewayKernelArgs(["--kernel-id", ID, "--response-address=10.0.0.5:8877", "--public-key", KEY, "--port-range", "40000..40100", "--ip", "127.0.0.1"], {})).toEqual({
      kernelId: ID,
      response: { host: "10.0.0.5", port: 8877 },
      publicKey: KEY,
      portRange: { lower: 40000, upper: 40100 },
      ip: "127.0.0.1",
    });
  });

  it("takes what the kernel pod's environment carries when there are no flags", () => {
    const env = { KERNEL_ID: ID, RESPONSE_ADDRESS: "[fd00::1]:8877", PUBLIC_KEY: KEY, PORT_RANGE: "0..0" };
    expect(parseGatewayKernelArgs([], env)).toEqual({ kernelId: ID, response: { host: "fd00::1", port: 8877 }, publicKey: KEY, portRange: { lower: 0, upper: 0 }, ip: "0.0.0.0" });
    // A flag wins over the environment.
    expect(parseGatewayKernelArgs(["--kernel-id", "abc-1"], env).kernelId).toBe("abc-1");
  });

  it.each([
    [[], /--kernel-id \(or KERNEL_ID\) is required/],
    [["--kernel-id", ID], /--response-address \(or RESPONSE_ADDRESS\) is required/],
    [["--kernel-id", ID, "--response-address", "h:1"], /--public-key \(or PUBLIC_KEY\) is required/],
    [["--kernel-id", "../x", "--response-address", "h:1", "--public-key", KEY], /must be EG's kernel id/],
    [["--kernel-id", ID, "--response-address", "no-port", "--public-key", KEY], /must be HOST:PORT/],
    [["--kernel-id", ID, "--response-address", "h:70000", "--public-key", KEY], /must be HOST:PORT/],
    [["--kernel-id", ID, "--response-address", "h:1", "--public-key", KEY, "--port-range", "5..9"], /--port-range must be LOWER\.\.UPPER/],
    [["--kernel-id"], /--kernel-id needs a value/],
    [["--frobnicate"], /unknown argument "--frobnicate"/],
  ])("refuses %j", (args, message) => {
    expect(() => parseGatewayKernelArgs(args, {})).toThrow(message);
  });
});

describe("EG's port range", () => {
  it("parses LOWER..UPPER and 0..0, and refuses the rest", () => {
    expect(parsePortRange("40000..40100")).toEqual({ lower: 40000, upper: 40100 });
    expect(parsePortRange("0..0")).toEqual({ lower: 0, upper: 0 });
    for (const bad of ["", "40000", "40000-40100", "40100..40000", "80..200", "40000..70000", "40000..40002"]) expect(() => parsePortRange(bad), bad).toThrow(/--port-range/);
  });
});

describe("comm port requests", () => {
  it("reads EG's signal, poll and shutdown requests", () => {
    expect(parseRequest('{"signum": 2}')).toEqual({ signum: 2 });
    expect(parseRequest('{"signum": 0}')).toEqual({ signum: 0 });
    expect(parseRequest('{"shutdown": 1}')).toEqual({ shutdown: 1 });
  });

  it.each(["", "not json", "[]", "{}", '{"signum": -1}', '{"signum": 2.5}', '{"signum": "2"}', '{"signum": 99}', '{"shutdown": "yes"}'])("ignores %j", (text) => {
    expect(parseRequest(text)).toBeNull();
  });
});

describe("the comm port", () => {
  let server: Server | undefined;
  afterEach(() => void server?.close());

  /** Serves a real comm port on loopback; `ask` sends one request as EG does and waits until it is handled. */
  async function commPort(): Promise<{ signals: number[]; logs: string[]; ask: (text: string) => Promise<void> }> {
    const signals: number[] = [];
    const logs: string[] = [];
    const listening = createServer();
    server = listening;
    listening.listen(0, "127.0.0.1");
    await once(listening, "listening");
    serveCommRequests({ server: listening, signal: (signum) => void signals.push(signum), log: (line) => void logs.push(line) });
    const port = (listening.address() as AddressInfo).port;
    const ask = async (text: string): Promise<void> => {
      const socket = connect(port, "127.0.0.1");
      socket.end(text);
      socket.resume();
      await once(socket, "close");
    };
    return { signals, logs, ask };
  }

  it("passes on EG's signals and answers the 0 poll without signalling", async () => {
    const port = await commPort();
    for (const signum of [0, 2, 15, 9]) await port.ask(JSON.stringify({ signum }));
    expect(port.signals).toEqual([2, 15, 9]);
  });

  it.each([19, 1, 10, 17])("refuses signal %i with a logged reason and keeps listening", async (signum) => {
    const port = await commPort();
    await port.ask(JSON.stringify({ signum }));
    expect(port.signals).toEqual([]);
    expect(port.logs).toEqual([`gateway comm port: refused signal ${signum} (only 2, 9, 15 and the 0 poll are EG's); the kernel goes on`]);
    await port.ask('{"signum": 2}');
    expect(port.signals).toEqual([2]);
  });
});
