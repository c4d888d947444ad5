// Makes the self-signed code-signing certificate "Deskbook Local Signing" with openssl and
// imports it into the login keychain. Signed with it, the helper's designated requirement is
// "identifier + this certificate" instead of the binary's hash, so grants survive rebuilds.
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { mustRun, type CommandRunner } from "./command-runner.js";
import { SIGNING_IDENTITY_NAME } from "./signing-identity.js";

export interface CertificateFiles {
  config: string;
  key: string;
  certificate: string;
  /** The key and certificate together, encrypted with `password`, for `security import`. */
  pkcs12: string;
  password: string;
}

/** A leaf certificate for code signing only: not a CA, digitalSignature, EKU codeSigning. */
export function certificateConfig(commonName: string = SIGNING_IDENTITY_NAME): string {
  return [
    "[ req ]",
    "distinguished_name = subject",
    "x509_extensions = codesign",
    "prompt = no",
    "",
    "[ subject ]",
    `CN = ${commonName}`,
    "",
    "[ codesign ]",
    "basicConstraints = critical, CA:false",
    "keyUsage = critical, digitalSignature",
    "extendedKeyUsage = critical, codeSigning",
    "subjectKeyIdentifier = hash",
    "",
  ].join("\n");
}

/**
 * The PKCS#12 algorithms are named rather than left to the default: OpenSSL 3 defaults to
 * AES + PBKDF2, which `security import` has been reported to reject, and OpenSSL 3's
 * `-legacy` does not exist in macOS's LibreSSL. SHA1-3DES with a SHA-1 MAC is understood by
 * both openssl flavours (3DES needs no legacy provider) and by the macOS keychain.
 */
export function pkcs12Args(files: Omit<CertificateFiles, "config" | "password">, commonName: string): string[] {
  return [
    "pkcs12", "-export",
    "-inkey", files.key, "-in", files.certificate, "-out", files.pkcs12,
    "-name", commonName,
    "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-3DES", "-macalg", "sha1",
    "-passout", "env:DESKBOOK_P12_PASSWORD",
  ];
}

/** Writes the config, key, certificate and .p12 into `dir` (a private temporary directory). */
export async function createCertificateFiles(dir: string, run: CommandRunner, commonName: string = SIGNING_IDENTITY_NAME): Promise<CertificateFiles> {
  const files = {
    config: join(dir, "codesign.cnf"),
    key: join(dir, "key.pem"),
    certificate: join(dir, "certificate.pem"),
    pkcs12: join(dir, "identity.p12"),
  };
  // A non-empty password: imports of password-less .p12 files have failed on macOS.
  const password = randomBytes(18).toString("base64url");
  await writeFile(files.config, certificateConfig(commonName), { mode: 0o600 });
  await mustRun(run, "openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "3650",
    "-config", files.config, "-extensions", "codesign", "-keyout", files.key, "-out", files.certificate,
  ]);
  await mustRun(run, "openssl", pkcs12Args(files, commonName), { env: { DESKBOOK_P12_PASSWORD: password } });
  return { ...files, password };
}

export function loginKeychain(): string {
  return join(homedir(), "Library", "Keychains", "login.keychain-db");
}

/** Imports the identity, letting codesign use its key without asking each time (-T). */
export async function importIdentity(files: CertificateFiles, run: CommandRunner, keychain: string = loginKeychain()): Promise<void> {
  await mustRun(run, "security", ["import", files.pkcs12, "-k", keychain, "-f", "pkcs12", "-P", files.password, "-T", "/usr/bin/codesign"]);
}
