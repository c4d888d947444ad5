// The helper bundle's Contents/Info.plist, generated here and nowhere else.
//
// No usage-description strings: Apple's Information Property List reference defines none for
// Accessibility, Screen Recording or Input Monitoring (those prompts are worded by macOS), so
// any such key would be invented. See docs/macos.md, "Info.plist".
export const HELPER_BUNDLE_ID = "dev.deskbook.helper";
export const HELPER_NAME = "Deskbook Helper";
export const HELPER_EXECUTABLE = "DeskbookHelper";
export const MINIMUM_MACOS = "13.0";
/** Our own key: the source hash the bundle was built from (see source-hash.ts). */
export const SOURCE_HASH_KEY = "DeskbookSourceHash";

export interface InfoPlistInput {
  /** Deskbook's version (src/version.ts). */
  version: string;
  sourceHash: string;
}

type PlistValue = string | boolean;

export function infoPlistEntries(input: InfoPlistInput): ReadonlyArray<readonly [string, PlistValue]> {
  return [
    ["CFBundleDevelopmentRegion", "en"],
    ["CFBundleDisplayName", HELPER_NAME],
    ["CFBundleExecutable", HELPER_EXECUTABLE],
    ["CFBundleIdentifier", HELPER_BUNDLE_ID],
    ["CFBundleInfoDictionaryVersion", "6.0"],
    ["CFBundleName", HELPER_NAME],
    ["CFBundlePackageType", "APPL"],
    ["CFBundleShortVersionString", input.version],
    ["CFBundleVersion", input.version],
    ["LSMinimumSystemVersion", MINIMUM_MACOS],
    // An agent app: no Dock icon, no app menu.
    ["LSUIElement", true],
    [SOURCE_HASH_KEY, input.sourceHash],
  ];
}

export function infoPlist(input: InfoPlistInput): string {
  const body = infoPlistEntries(input)
    .map(([key, value]) => `\t<key>${escapeXml(key)}</key>\n\t${typeof value === "boolean" ? `<${value}/>` : `<string>${escapeXml(value)}</string>`}`)
    .join("\n");
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    body,
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}

/** The source hash stamped into a plist this module wrote, or undefined. */
export function stampedSourceHash(plistText: string): string | undefined {
  const match = new RegExp(`<key>${SOURCE_HASH_KEY}</key>\\s*<string>([0-9a-f]+)</string>`).exec(plistText);
  return match?.[1];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
