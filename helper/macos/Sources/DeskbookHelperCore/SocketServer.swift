// The helper's Unix-domain stream socket server, on Darwin's own calls (socket, bind, listen,
// accept) and Grand Central Dispatch.
//
// Design: no thread blocks in accept() or read(). The listening socket is non-blocking and
// watched by a DispatchSource; when it fires, every pending connection is accepted. Each
// accepted connection gets its own read source on its own serial queue (lines in order, one
// connection's trouble never touches another's queue) and its own serial write queue (see
// SocketConnection). Calls are handed to a concurrent queue by RequestHandler, so a slow one
// never holds up the next line. Stopping is a cancel, with no thread to wake.
//
// Security, as docs/security.md asks: created under umask 077 in a 0700 directory, the socket
// chmod 0600, and every accepted connection's peer uid checked with getpeereid(); one from
// another user is closed before a byte is read. Darwin only: on other systems this file is empty.
#if canImport(Darwin)
import Darwin
import Foundation

public final class SocketServer: @unchecked Sendable {
    public let path: String
    private let handler: RequestHandler
    private let acceptQueue = DispatchQueue(label: "deskbook.helper.accept")
    private let lock = NSLock()
    private var listener: DispatchSourceRead?
    private var connections: [Int: SocketConnection] = [:]
    private var nextNumber = 0
    private var boundInode: ino_t?
    /// Touched only on acceptQueue: the listener is suspended until the pause ends.
    private var acceptPaused = false
    /// How long accepting pauses when the process is out of descriptors (nginx's
    /// accept_mutex_delay default): the pending connection keeps the listener readable, so
    /// retrying at once would spin a core until a descriptor is freed.
    static let descriptorPause: DispatchTimeInterval = .milliseconds(500)

    public init(path: String, handler: RequestHandler) {
        self.path = path
        self.handler = handler
    }

    /// Prepares the directory, replaces a stale socket, and listens. `.taken` when another
    /// helper already answers at the path (then nothing was changed and nothing listens here).
    public func start() throws -> SocketFiles.Preparation {
        let previousMask = umask(0o077)
        defer { _ = umask(previousMask) }
        if try SocketFiles.prepare(path: path) == .taken { return .taken }
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        guard fd >= 0 else { throw SocketFiles.SetupError("cannot create a socket: \(SocketFiles.reason(errno))") }
        do {
            try listen(on: fd)
        } catch {
            _ = Darwin.close(fd)
            throw error
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
        source.setEventHandler { [weak self] in
            self?.acceptPending(fd)
        }
        source.setCancelHandler {
            _ = Darwin.close(fd)
        }
        lock.lock()
        listener = source
        lock.unlock()
        source.resume()
        return .ready
    }

    /// An event (`escape`, `stop`) to every connection that has said hello.
    public func broadcast(_ event: Event) {
        let line = event.line
        for connection in snapshot() where connection.session.client != nil {
            connection.send(line)
        }
    }

    /// Stops accepting, drops every connection, and removes the socket file if it is still ours.
    public func stop() {
        lock.lock()
        let source = listener
        listener = nil
        let inode = boundInode
        boundInode = nil
        lock.unlock()
        source?.cancel()
        for connection in snapshot() {
            connection.disconnect()
        }
        var info = stat()
        if let inode = inode, lstat(path, &info) == 0, info.st_ino == inode {
            _ = unlink(path)
        }
    }

    /// bind, chmod 0600, listen; the descriptor non-blocking (so accept never waits) and not
    /// inherited by processes the helper starts.
    private func listen(on fd: Int32) throws {
        SocketFiles.closeOnExec(fd)
        let bound = try SocketFiles.withAddress(path) { address, size in bind(fd, address, size) }
        guard bound == 0 else {
            throw SocketFiles.SetupError("cannot listen on \(path): bind failed: \(SocketFiles.reason(errno))")
        }
        // bind gives the file 0777 less the umask (077): 0700. The protocol asks for 0600.
        guard chmod(path, 0o600) == 0 else {
            let code = errno
            _ = unlink(path)
            throw SocketFiles.SetupError("cannot make \(path) private: \(SocketFiles.reason(code))")
        }
        var info = stat()
        if lstat(path, &info) == 0 {
            lock.lock()
            boundInode = info.st_ino
            lock.unlock()
        }
        guard Darwin.listen(fd, SOMAXCONN) == 0 else {
            let code = errno
            _ = unlink(path)
            throw SocketFiles.SetupError("cannot listen on \(path): \(SocketFiles.reason(code))")
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let code = errno
            _ = unlink(path)
            throw SocketFiles.SetupError("cannot make the socket non-blocking: \(SocketFiles.reason(code))")
        }
    }

    /// Runs on acceptQueue: every connection waiting in the backlog.
    private func acceptPending(_ listenerFD: Int32) {
        while true {
            let fd = accept(listenerFD, nil, nil)
            if fd < 0 {
                let code = errno
                if code == EINTR || code == ECONNABORTED { continue }
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                    pauseAccepting(SocketFiles.reason(code))
                }
                return // EAGAIN: the backlog is empty; anything else: try again on the next event
            }
            admit(fd)
        }
    }

    /// Out of descriptors or memory: the waiting connection stays in the backlog and the
    /// listener stays readable, so stop listening for a moment instead of failing in a loop.
    private func pauseAccepting(_ reason: String) {
        lock.lock()
        let source = listener
        lock.unlock()
        guard let source = source, !acceptPaused else { return }
        acceptPaused = true
        source.suspend()
        warn("cannot accept a connection (\(reason)); trying again in half a second")
        acceptQueue.asyncAfter(deadline: .now() + SocketServer.descriptorPause) { [weak self] in
            self?.acceptPaused = false
            // Resumed even after stop(): a cancelled source runs its cancel handler (which
            // closes the descriptor) only once it is resumed.
            source.resume()
        }
    }

    private func admit(_ fd: Int32) {
        var uid = uid_t()
        var gid = gid_t()
        guard getpeereid(fd, &uid, &gid) == 0, uid == getuid() else {
            // Another user (or a peer that cannot be told): closed before a byte is read.
            _ = Darwin.close(fd)
            warn("refused a connection from uid \(uid) (only uid \(getuid()) may connect)")
            return
        }
        SocketFiles.closeOnExec(fd)
        SocketFiles.noSigpipe(fd)
        // Accepted sockets inherit O_NONBLOCK from the listener on Darwin: writes should block
        // (on the connection's own write queue) for at most the send timeout instead.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        var timeout = timeval(tv_sec: SocketConnection.sendTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        lock.lock()
        nextNumber += 1
        let number = nextNumber
        let connection = SocketConnection(fd: fd, number: number, handler: handler)
        connections[number] = connection
        lock.unlock()
        connection.start { [weak self] in
            self?.forget(number)
        }
    }

    private func forget(_ number: Int) {
        lock.lock()
        connections[number] = nil
        lock.unlock()
    }

    private func snapshot() -> [SocketConnection] {
        lock.lock()
        defer { lock.unlock() }
        return Array(connections.values)
    }

    private func warn(_ text: String) {
        FileHandle.standardError.write(Data("deskbook helper: \(text)\n".utf8))
    }
}
#endif
