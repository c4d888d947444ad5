// The macOS helper process: `DeskbookHelper [--home PATH] [--socket PATH]`. Serves the helper
// protocol (docs/backend-protocol.md) on a private Unix socket, prints "listening PATH" once it
// accepts connections, and quits on SIGTERM or SIGINT, from its menu, or after 30 minutes with
// no client connected (checked once a minute; the next client launches it again).
//
// `--home` sets DESKBOOK_HOME before anything reads it: launched as an app
// (`open -g -a "Deskbook Helper.app" --args --home H --socket S`), the helper gets no
// environment variables from the client.
//
// MacDispatcher serves the methods (see helper/macos/README.md for what is and is not
// implemented). The main thread runs NSApplication (as an accessory app: no Dock icon; a
// menu-bar item while a client is connected) rather than dispatchMain(), because
// NSWorkspace's running-app list and frontmost app only update while the main run loop runs,
// the Escape tap is a run loop source, and the approval dialog and menu are AppKit.
// NEVER COMPILED OR RUN (see README.md).
import DeskbookHelperCore
import Foundation
#if canImport(Darwin)
import AppKit
import Darwin

let helperVersion = "deskbook macos helper 0.1.0 (untested AppKit core)"

func warn(_ text: String) {
    FileHandle.standardError.write(Data("deskbook helper: \(text)\n".utf8))
}

let usage = "usage: DeskbookHelper [--home PATH] [--socket PATH]"

/// `--home PATH` and `--socket PATH` (or `--name=PATH`), made absolute; anything else ends the process.
func options(_ arguments: [String]) -> [String: String] {
    var found: [String: String] = [:]
    var index = 1
    while index < arguments.count {
        let argument = arguments[index]
        // Older LaunchServices launches add a process serial number argument; it means nothing here.
        if argument.hasPrefix("-psn_") {
            index += 1
            continue
        }
        var matched = false
        for name in ["home", "socket"] {
            if argument == "--\(name)", index + 1 < arguments.count, !arguments[index + 1].isEmpty {
                found[name] = HelperPaths.absolute(arguments[index + 1])
                index += 1
                matched = true
            } else if argument.hasPrefix("--\(name)="), argument.count > "--\(name)=".count {
                found[name] = HelperPaths.absolute(String(argument.dropFirst("--\(name)=".count)))
                matched = true
            }
        }
        if !matched {
            warn("unknown argument \(argument)\n\(usage)")
            exit(2)
        }
        index += 1
    }
    return found
}

/// DESKBOOK_HOME for everything that reads it later (HelperPaths.home(), config.json, actions.log).
func useHome(_ home: String) {
    guard setenv("DESKBOOK_HOME", home, 1) == 0 else {
        warn("cannot set DESKBOOK_HOME to \(home)")
        exit(2)
    }
    // Darwin's ProcessInfo is expected to read the environment afresh; say so loudly if not.
    if HelperPaths.home() != home {
        warn("--home \(home) did not take effect (HelperPaths.home() is \(HelperPaths.home()))")
    }
}

// A client that goes away mid-write must cost an EPIPE, not the process.
_ = signal(SIGPIPE, SIG_IGN)

// NSApp exists, on the main thread, before any connection can reach AppKit code from a call queue.
let application = NSApplication.shared
_ = application.setActivationPolicy(.accessory)

// Every AX message gives up after a second, so one unresponsive app cannot hold a call (or
// the whole axTree) for the system's default timeout.
AX.setGlobalTimeout()

let given = options(CommandLine.arguments)
if let home = given["home"] { useHome(home) }
let path = given["socket"] ?? HelperPaths.socket()
let escapeTap = EscapeTap()
// Input and approval dialogs never overlap (InputFloor, shared with the Linux helper's rule).
let inputFloor = InputFloor()
let registry = SessionRegistry()
let handler = RequestHandler(
    version: helperVersion, dispatcher: MacDispatcher(version: helperVersion, escapeTap: escapeTap, floor: inputFloor),
    registry: registry)
let server = SocketServer(path: path, handler: handler)

// The menu-bar item follows the connected clients; the idle watch hears of every change too.
let menuBar = MenuBar(registry: registry, server: server)
let idleWatch = IdleWatch()
registry.onChange = {
    idleWatch.connectionsChanged(count: registry.count)
    DispatchQueue.main.async { menuBar.update() }
}

// Nobody connected for 30 minutes: the helper goes (socket removed), the next client relaunches it.
let idleTimer = DispatchSource.makeTimerSource(queue: DispatchQueue.main)
idleTimer.schedule(deadline: .now() + .seconds(Int(IdleWatch.checkInterval)), repeating: .seconds(Int(IdleWatch.checkInterval)))
idleTimer.setEventHandler {
    if idleWatch.shouldQuit(connected: registry.count) {
        warn("no client for \(Int(IdleWatch.defaultLimit / 60)) minutes; quitting")
        server.stop()
        exit(0)
    }
}
idleTimer.resume()

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
// cannot be installed; `permissions` reports that and tries again once it is granted. The
// Escape that answers an approval dialog as Deny (while it is shown, or just after it closed)
// is the dialog's, and must not stop every client's cell as well.
escapeTap.onEscape = {
    if !inputFloor.escapeIsSwallowed() { server.broadcast(.escape) }
}
if !escapeTap.start() {
    warn("the Escape watcher is off: Input Monitoring is not granted")
}

FileHandle.standardOutput.write(Data("listening \(path)\n".utf8))
application.run()
#else
FileHandle.standardError.write(Data("the Deskbook macOS helper runs on macOS only\n".utf8))
exit(2)
#endif
