// Apps the helper refuses by default (`blocked`), mirroring helper/linux/blocked-apps.ts entry for
// entry: that list carries Linux and macOS names alike, so both helpers block the same apps and
// pass the same policy vectors (test/fixtures/policy-vectors.json). A terminal runs anything, a
// password manager or keyring holds secrets, system settings change the machine. Only an
// explicit `allow` entry unlocks one. test/macos/swift-parity.test.ts checks that the strings
// in this file are exactly the TypeScript list: change both together.
import Foundation

public enum BlockedApps {
    static let terminals: [String] = [
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
    ]

    static let secrets: [String] = [
        "keepassxc", "org.keepassxc.keepassxc", "keepass", "keepass2", "bitwarden", "com.bitwarden.desktop",
        "1password", "com.1password.1password", "com.agilebits.onepassword7", "enpass",
        "seahorse", "org.gnome.seahorse.application", "passwords and keys",
        "gnome-keyring", "gnome-keyring-daemon", "kwalletmanager", "kwalletmanager5", "org.kde.kwalletmanager5",
        "secrets", "gnome-passwordsafe", "org.gnome.world.secrets", "pass", "qtpass",
        // macOS
        "keychain access", "com.apple.keychainaccess", "passwords", "com.apple.passwords",
    ]

    static let system: [String] = [
        "gnome-control-center", "org.gnome.settings", "settings", "system settings", "systemsettings",
        "systemsettings5", "org.kde.systemsettings", "xfce4-settings-manager", "xfce-settings-manager",
        "lxqt-config", "mate-control-center", "cinnamon-settings", "budgie-control-center", "unity-control-center",
        "polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1", "lxpolkit", "pkexec",
        // macOS
        "system preferences", "com.apple.systempreferences", "com.apple.settings", "com.apple.systemsettings",
        // macOS scripting: a script runs anything, as a terminal does.
        "script editor", "com.apple.scripteditor2", "automator", "com.apple.automator",
    ]

    /// Every blocked name, lowercase; names match whole and case-insensitively.
    public static let names: Set<String> = Set(terminals + secrets + system)

    /// The first of `names` on the blocked list, or nil.
    public static func blockedName(_ names: [String]) -> String? {
        return names.first { BlockedApps.names.contains($0.lowercased()) }
    }
}
