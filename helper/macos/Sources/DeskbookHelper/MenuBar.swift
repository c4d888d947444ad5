// The helper's menu-bar item, shown only while at least one client is connected. Its menu lists
// each connected client and the apps it may drive this session (disabled items, rebuilt each
// time the menu opens), then: Stop Running Scripts (the `stop` event to every client), Revoke
// Session Approvals, Hide/Show Agent Cursor, Quit Deskbook Helper.
//
// Main thread only: `update()` is called through the main queue when the registry changes;
// the menu's actions and delegate calls come on the main thread.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import DeskbookHelperCore
import Foundation

final class MenuBar: NSObject, NSMenuDelegate {
    static let stopReason = "Stop Running Scripts was chosen in the Deskbook Helper menu"

    private let registry: SessionRegistry
    private let server: SocketServer
    private var item: NSStatusItem?

    init(registry: SessionRegistry, server: SocketServer) {
        self.registry = registry
        self.server = server
        super.init()
    }

    /// Shows the item while a client is connected and removes it once none is. Main thread.
    func update() {
        if registry.count > 0 {
            show()
        } else {
            remove()
        }
    }

    private func show() {
        guard item == nil else { return }
        // The status bar does not keep the item: `item` does, until remove().
        let statusItem = NSStatusBar.system.statusItem(withLength: NSStatusItem.variableLength)
        if let image = NSImage(systemSymbolName: "cursorarrow.rays", accessibilityDescription: "Deskbook Helper") {
            image.isTemplate = true
            statusItem.button?.image = image
        } else {
            statusItem.button?.title = "Deskbook"
        }
        statusItem.button?.toolTip = "Deskbook Helper"
        let menu = NSMenu(title: "Deskbook Helper")
        menu.autoenablesItems = false
        menu.delegate = self
        // Filled now as well: whether AppKit asks the delegate before opening an empty menu is
        // not documented, and a status item whose menu has no items may not open at all.
        menuNeedsUpdate(menu)
        statusItem.menu = menu
        item = statusItem
    }

    private func remove() {
        guard let statusItem = item else { return }
        NSStatusBar.system.removeStatusItem(statusItem)
        item = nil
    }

    // MARK: NSMenuDelegate

    /// Rebuilt on every opening, so approvals given since show up without any notification.
    func menuNeedsUpdate(_ menu: NSMenu) {
        menu.removeAllItems()
        for entry in registry.entries {
            menu.addItem(label(entry.client, indent: 0))
            if entry.approvedApps.isEmpty {
                menu.addItem(label("No apps approved this session", indent: 1))
            }
            for app in entry.approvedApps {
                menu.addItem(label(app, indent: 1))
            }
        }
        menu.addItem(NSMenuItem.separator())
        menu.addItem(command("Stop Running Scripts", #selector(stopScripts)))
        menu.addItem(command("Revoke Session Approvals", #selector(revokeApprovals)))
        let cursorTitle = AgentCursor.shared.isHiddenByUser ? "Show Agent Cursor" : "Hide Agent Cursor"
        menu.addItem(command(cursorTitle, #selector(toggleAgentCursor)))
        menu.addItem(NSMenuItem.separator())
        menu.addItem(command("Quit Deskbook Helper", #selector(quit)))
    }

    private func label(_ title: String, indent: Int) -> NSMenuItem {
        let menuItem = NSMenuItem(title: title, action: nil, keyEquivalent: "")
        menuItem.isEnabled = false
        menuItem.indentationLevel = indent
        return menuItem
    }

    private func command(_ title: String, _ action: Selector) -> NSMenuItem {
        let menuItem = NSMenuItem(title: title, action: action, keyEquivalent: "")
        menuItem.target = self
        menuItem.isEnabled = true
        return menuItem
    }

    // MARK: Actions

    /// Every client stops the cell it is running (the client decides how; see the protocol doc).
    @objc private func stopScripts() {
        server.broadcast(.stop(reason: MenuBar.stopReason))
    }

    /// The next gated call for each app asks again; Deny answers stay.
    @objc private func revokeApprovals() {
        registry.revokeSessionApprovals()
    }

    @objc private func toggleAgentCursor() {
        let cursor = AgentCursor.shared
        cursor.setHiddenByUser(!cursor.isHiddenByUser)
    }

    /// Removes the socket (if it is still ours) and ends the process; clients see the connection close.
    @objc private func quit() {
        server.stop()
        exit(0)
    }
}
