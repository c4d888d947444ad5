// The macOS helper process: `DeskbookHelper [--socket PATH]`. Serves the helper protocol
// (docs/backend-protocol.md) on a private Unix socket until SIGTERM or SIGINT, prints
// "listening PATH" once it accepts connections, and does not quit when idle.
//
// MacDispatcher serves the methods (see helper/macos/README.md for what is and is not
// implemented). The main thread runs NSApplication (as an accessory app: no Dock icon, no
// menu bar yet) rather than dispatchMain(), because NSWorkspace's running-app list and
// frontmost app only update while the main run loop runs, and the Escape tap is a run loop
// source. Never compiled or run as of this writing.
import DeskbookHelperCore
import Foundation
#if canImport(Darwin)
import AppKit
import Darwin

let helperVersion = "deskbook macos helper 0.1.0 (untested AppKit core)"

func warn(_ text: String) {
    FileHandle.standardError.write(Data("deskbook helper: \(text)\n".utf8))
}

/// `--socket PATH` or `--socket=PATH`, else DESKBOOK_SOCKET, else $DESKBOOK_HOME/helper.sock.
func socketPath(_ arguments: [String]) -> String {
    var index = 1
    while index < arguments.count {
        let argument = arguments[index]
        if argument == "--socket", index + 1 < arguments.count, !arguments[index + 1].isEmpty {
            return HelperPaths.absolute(arguments[index + 1])
        }
        if argument.hasPrefix("--socket="), argument.count > "--socket=".count {
            return HelperPaths.absolute(String(argument.dropFirst("--socket=".count)))
        }
        warn("unknown argument \(argument)\nusage: DeskbookHelper [--socket PATH]")
        exit(2)
    }
    return HelperPaths.socket()
}

// A client that goes away mid-write must cost an EPIPE, not the process.
_ = signal(SIGPIPE, SIG_IGN)

let path = socketPath(CommandLine.arguments)
let escapeTap = EscapeTap()
let handler = RequestHandler(version: helperVersion, dispatcher: MacDispatcher(version: helperVersion, escapeTap: escapeTap))
let server = SocketServer(path: path, handler: handler)
do {
    if try server.start() == .taken {
        print("another helper is already listening on \(path); one helper per socket, so this one exits")
        exit(0)
    }
} catch {
    warn("cannot start: \(error)")
    exit(2)
}

// SIGTERM and SIGINT remove the socket (if it is still ours) and end the process. The signals
// are ignored first so that only the dispatch sources see them.
var signalSources: [DispatchSourceSignal] = []
for signalNumber in [SIGTERM, SIGINT] {
    _ = signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: DispatchQueue.main)
    source.setEventHandler {
        server.stop()
        exit(0)
    }
    source.resume()
    signalSources.append(source)
}

// The user's Escape stops the running cell on every client. Without Input Monitoring the tap
// cannot be installed; `permissions` reports that and tries again once it is granted.
escapeTap.onEscape = { server.broadcast(.escape) }
if !escapeTap.start() {
    warn("the Escape watcher is off: Input Monitoring is not granted")
}

FileHandle.standardOutput.write(Data("listening \(path)\n".utf8))
let application = NSApplication.shared
_ = application.setActivationPolicy(.accessory)
application.run()
#else
FileHandle.standardError.write(Data("the Deskbook macOS helper runs on macOS only\n".utf8))
exit(2)
#endif
