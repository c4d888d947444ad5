// Apps the helper refuses by default (`blocked`): a terminal runs anything, a password manager
// or keyring holds secrets, system settings and polkit agents change the machine. Only an
// explicit `allow` entry unlocks one. The list carries Linux and macOS names alike so both
// helpers block the same apps and pass the same policy vectors (test/fixtures/policy-vectors.json):
// it is the one source, and the macOS helper's copy is generated from it.
// Entries match an app's name, desktop/bundle id or executable, case-insensitively and whole.

const TERMINALS = [
  "xterm", "uxterm", "debian-xterm", "debian-uxterm", "x-terminal-emulator",
  "gnome-terminal", "gnome-terminal-server", "org.gnome.terminal", "terminal",
  "kgx", "org.gnome.console", "console", "ptyxis", "org.gnome.ptyxis",
  "konsole", "org.kde.konsole", "yakuake", "org.kde.yakuake",
  "xfce4-terminal", "xfce4-terminal.wrapper", "xfce terminal", "lxterminal", "qterminal", "mate-terminal",
  "terminator", "tilix", "com.gexperts.tilix", "guake", "tilda", "sakura", "terminology",
  "kitty", "alacritty", "org.alacritty.alacritty", "urxvt", "urxvtd", "rxvt", "rxvt-unicode",
  "st", "st-256color", "foot", "footclient", "org.codeberg.dnkl.foot",
  "wezterm", "wezterm-gui", "org.wezfurlong.wezterm", "cool-retro-term", "eterm", "deepin-terminal",
  "contour", "ghostty", "com.mitchellh.ghostty", "blackbox", "com.raggesilver.blackbox", "rio",
  // macOS
  "com.apple.terminal", "iterm", "iterm2", "com.googlecode.iterm2", "warp", "dev.warp.warp-stable",
  "hyper", "co.zeit.hyper", "io.alacritty", "net.kovidgoyal.kitty", "com.github.wez.wezterm",
] as const;

const SECRETS = [
  "keepassxc", "org.keepassxc.keepassxc", "keepass", "keepass2", "bitwarden", "com.bitwarden.desktop",
  "1password", "com.1password.1password", "com.agilebits.onepassword7", "enpass",
  "seahorse", "org.gnome.seahorse.application", "passwords and keys",
  "gnome-keyring", "gnome-keyring-daemon", "kwalletmanager", "kwalletmanager5", "org.kde.kwalletmanager5",
  "secrets", "gnome-passwordsafe", "org.gnome.world.secrets", "pass", "qtpass",
  // macOS
  "keychain access", "com.apple.keychainaccess", "passwords", "com.apple.passwords",
] as const;

const SYSTEM = [
  "gnome-control-center", "org.gnome.settings", "settings", "system settings", "systemsettings",
  "systemsettings5", "org.kde.systemsettings", "xfce4-settings-manager", "xfce-settings-manager",
  "lxqt-config", "mate-control-center", "cinnamon-settings", "budgie-control-center", "unity-control-center",
  "polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1", "lxpolkit", "pkexec",
  // macOS
  "system preferences", "com.apple.systempreferences", "com.apple.settings", "com.apple.systemsettings",
  // macOS scripting: a script runs anything, as a terminal does.
  "script editor", "com.apple.scripteditor2", "automator", "com.apple.automator",
] as const;

/** The list by kind; the macOS helper's BlockedApps.swift is generated from it (helper/macos/swift-tables.ts). */
export const BLOCKED_GROUPS = { terminals: TERMINALS, secrets: SECRETS, system: SYSTEM } as const;

export const BLOCKED_APPS: ReadonlySet<string> = new Set<string>([...TERMINALS, ...SECRETS, ...SYSTEM]);

/** The first of `names` on the blocked list, or undefined. */
export function blockedName(names: readonly string[]): string | undefined {
  return names.find((name) => BLOCKED_APPS.has(name.toLowerCase()));
}
