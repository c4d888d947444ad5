// The general pasteboard's text for clipboardRead, clipboardWrite and paste. `paste` puts the
// text on the pasteboard, presses Command-V, and puts back the text that was there (or clears
// it when there was none). Only text is kept across a paste: other kinds of data on the
// pasteboard (images, files) are not restored.
//
// NEVER COMPILED OR RUN (see README.md).
import AppKit
import DeskbookHelperCore
import Foundation

enum Clipboard {
    /// Long enough for the app to read the pasteboard before the old text comes back.
    static let pasteSettleSeconds = 0.3

    static func read() -> String {
        return onMain { NSPasteboard.general.string(forType: .string) ?? "" }
    }

    static func write(_ text: String) throws {
        let written = onMain { () -> Bool in
            NSPasteboard.general.clearContents()
            return NSPasteboard.general.setString(text, forType: .string)
        }
        if !written { throw HelperError(.failed, "the pasteboard refused the text") }
    }

    /// Pasteboard, `pressPaste` (Command-V through Input), then the pasteboard's text as it was.
    static func paste(_ text: String, pressPaste: () throws -> Void) throws {
        let previous = onMain { NSPasteboard.general.string(forType: .string) }
        try write(text)
        defer {
            Thread.sleep(forTimeInterval: pasteSettleSeconds)
            if let previous = previous {
                try? write(previous)
            } else {
                onMain { NSPasteboard.general.clearContents() }
            }
        }
        try pressPaste()
    }

    /// config.json's `clipboard` grant, read afresh; not_granted when it is off.
    static func requireGrant(_ what: String) throws {
        let config = try DeskbookConfig.load(home: HelperPaths.home()).config
        let on = what == "read" ? config.clipboard.read : config.clipboard.write
        if !on {
            let verb = what == "read" ? "reading" : "writing"
            throw HelperError(.notGranted, "clipboard \(verb) is off; set \"clipboard\": {\"\(what)\": true} in config.json to allow it")
        }
    }

    private static func onMain<T>(_ body: () -> T) -> T {
        return Thread.isMainThread ? body() : DispatchQueue.main.sync(execute: body)
    }
}
