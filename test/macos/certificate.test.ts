// The signing certificate, really generated with this machine's openssl and read back.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createCertificateFiles, importIdentity, type CertificateFiles } from "../../src/macos/certificate.js";
import { runCommand } from "../../src/macos/command-runner.js";
import { tempDir } from "../support/temp-dir.js";

const openssl = (args: string[], env: Record<string, string> = {}): string =>
  execFileSync("openssl", args, { encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });

describe("createCertificateFiles", () => {
  let files: CertificateFiles;

  it("makes a self-signed code-signing leaf certificate named Deskbook Local Signing", async () => {
    files = await createCertificateFiles(await tempDir("deskbook-cert-"), runCommand);
    const text = openssl(["x509", "-in", files.certificate, "-noout", "-text"]);
    expect(text).toMatch(/Subject: CN\s?=\s?Deskbook Local Signing/);
    expect(text).toMatch(/Issuer: CN\s?=\s?Deskbook Local Signing/);
    expect(text).toMatch(/X509v3 Extended Key Usage: critical\s+Code Signing\s/);
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature\s/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).not.toMatch(/Certificate Sign/);
  });

  it("exports a .p12 readable without OpenSSL 3's -legacy, with 3DES and a SHA-1 MAC", () => {
    const all = openssl(["pkcs12", "-info", "-in", files.pkcs12, "-passin", "env:P", "-nodes"], { P: files.password });
    expect(all).toContain("Deskbook Local Signing");
    expect(all).toContain("BEGIN CERTIFICATE");
    expect(all).toContain("PRIVATE KEY");
    // -info writes the algorithms to stderr.
    const details = execFileSync("sh", ["-c", 'openssl pkcs12 -info -in "$F" -passin env:P -nokeys -nocerts 2>&1'], {
      encoding: "utf8",
      env: { ...process.env, F: files.pkcs12, P: files.password },
    });
    expect(details).toMatch(/MAC: sha1/i);
    expect(details).toMatch(/pbeWithSHA1And3-KeyTripleDES-CBC/);
    expect(details).not.toMatch(/PBES2|RC2/);
  });

  it("refuses the .p12 with a wrong password (so the password is really set)", () => {
    expect(() => openssl(["pkcs12", "-info", "-in", files.pkcs12, "-passin", "pass:wrong", "-noout"])).toThrow();
  });
});

describe("importIdentity", () => {
  it("imports into the given keychain and lets codesign use the key", async () => {
    const calls: string[][] = [];
    const files = { config: "c", key: "k", certificate: "crt", pkcs12: "/tmp/x.p12", password: "pw" };
    await importIdentity(files, async (command, args) => (calls.push([command, ...args]), { status: 0, stdout: "", stderr: "" }), "/k/login.keychain-db");
    expect(calls).toEqual([["security", "import", "/tmp/x.p12", "-k", "/k/login.keychain-db", "-f", "pkcs12", "-P", "pw", "-T", "/usr/bin/codesign"]]);
  });
});
