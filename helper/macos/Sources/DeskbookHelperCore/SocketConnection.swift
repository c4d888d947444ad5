// One accepted client. Reads run on a DispatchSource (one serial queue per connection, so
// lines are handled in order); writes go through a second serial queue of the connection's
// own, so a client that stops reading stalls only its own writes, and after SO_SNDTIMEO it is
// dropped. The descriptor is closed in exactly one place, after the read source's cancel
// handler and on the write queue, so no later write can reach a reused descriptor number.
// Darwin only: on other systems this file is empty.
#if canImport(Darwin)
import Darwin
import Foundation

final class SocketConnection: @unchecked Sendable {
    let session = Session()
    private let fd: Int32
    private let handler: RequestHandler
    private let readQueue: DispatchQueue
    private let writeQueue: DispatchQueue
    private let readSource: DispatchSourceRead
    /// Touched only on readQueue.
    private var splitter = LineSplitter(maxLineBytes: MAX_LINE_BYTES)
    /// Touched only on readQueue.
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    /// Touched only on writeQueue: false once the descriptor is closed or closing.
    private var isOpen = true

    /// How long a write may block on a client that does not read before it is dropped.
    static let sendTimeoutSeconds = 30

    init(fd: Int32, number: Int, handler: RequestHandler) {
        self.fd = fd
        self.handler = handler
        let reads = DispatchQueue(label: "deskbook.helper.connection.\(number).read")
        readQueue = reads
        writeQueue = DispatchQueue(label: "deskbook.helper.connection.\(number).write")
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: reads)
    }

    /// Starts reading. `onClosed` runs once, after the descriptor is closed.
    func start(onClosed: @escaping () -> Void) {
        readSource.setEventHandler { [weak self] in
            self?.readAvailable()
        }
        session.setNotifier { [weak self] event in
            self?.send(event.line)
        }
        let fd = self.fd
        let writeQueue = self.writeQueue
        let session = self.session
        let handler = self.handler
        readSource.setCancelHandler { [weak self] in
            session.markClosed()
            handler.closed(session)
            // Captured again for the inner block: Swift 6 rejects a @Sendable closure that uses
            // the outer closure's captured `self` ("reference to captured var in
            // concurrently-executing code"); a capture list takes its value here instead.
            writeQueue.async { [weak self] in
                self?.isOpen = false
                _ = Darwin.close(fd)
                onClosed()
            }
        }
        readSource.resume()
    }

    /// Queues one line for the client; dropped silently once the connection is closing.
    func send(_ data: Data) {
        writeQueue.async { [self] in
            guard isOpen else { return }
            if !writeAll(data) {
                isOpen = false
                readSource.cancel()
            }
        }
    }

    /// Stops reading and closes once queued writes are done.
    func disconnect() {
        writeQueue.async { [self] in
            isOpen = false
            readSource.cancel()
        }
    }

    private func readAvailable() {
        let count = buffer.withUnsafeMutableBytes { raw -> Int in
            recv(fd, raw.baseAddress, raw.count, MSG_DONTWAIT)
        }
        if count > 0 {
            let items = splitter.push(Data(buffer[0..<count]))
            for item in items {
                handler.handle(item, session: session) { [weak self] line in
                    self?.send(line)
                }
            }
        } else if count == 0 {
            readSource.cancel() // the client closed its end
        } else {
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK || code == EINTR { return }
            readSource.cancel()
        }
    }

    /// The whole buffer, or false when the client is gone or stopped reading.
    private func writeAll(_ data: Data) -> Bool {
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let written = Darwin.write(fd, base + offset, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return false // EPIPE, or EAGAIN after SO_SNDTIMEO
                }
            }
            return true
        }
    }
}
#endif
