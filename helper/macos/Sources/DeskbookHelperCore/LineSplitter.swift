// Request lines from a byte stream, with a bound, as helper/linux/line-reader.ts and
// src/helper/json-lines.ts do together. Works on bytes, so a UTF-8 character cut in two by a
// read boundary is decoded whole. A line over the bound is reported once, its bytes are
// dropped up to the next newline, and reading goes on from there: a JSON line never holds a
// raw newline, so the next one is a line start that can be trusted.
import Foundation

public struct LineSplitter {
    /// A complete line (decoded as UTF-8, newline removed), or the news that one was over the bound.
    public enum Item: Equatable {
        case line(String)
        case tooLong
    }

    public let maxLineBytes: Int
    /// Bytes of a line not yet complete.
    private var pending = Data()
    /// Inside an over-long line: drop bytes until its newline.
    private var skipping = false

    public init(maxLineBytes: Int = MAX_LINE_BYTES) {
        self.maxLineBytes = maxLineBytes
    }

    /// Bytes held for a line not yet complete.
    public var pendingBytes: Int { return pending.count }

    /// The items completed by `chunk`, in order. Blank lines are skipped.
    public mutating func push(_ chunk: Data) -> [Item] {
        var items: [Item] = []
        var start = chunk.startIndex
        while start < chunk.endIndex {
            let newline = chunk[start..<chunk.endIndex].firstIndex(of: 0x0A)
            guard let end = newline else {
                keep(chunk[start..<chunk.endIndex], into: &items)
                break
            }
            take(chunk[start..<end], into: &items)
            start = chunk.index(after: end)
        }
        return items
    }

    /// The piece of a line before its newline: completes the pending line, or ends a skip.
    private mutating func take(_ tail: Data, into items: inout [Item]) {
        if skipping {
            skipping = false
            return
        }
        if pending.count + tail.count > maxLineBytes {
            pending = Data()
            items.append(.tooLong)
            return
        }
        var whole = pending
        whole.append(tail)
        pending = Data()
        let line = String(decoding: whole, as: UTF8.self)
        if !line.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            items.append(.line(line))
        }
    }

    /// A line's start with no newline yet: kept, unless that makes it too long.
    private mutating func keep(_ rest: Data, into items: inout [Item]) {
        if skipping || rest.isEmpty { return }
        if pending.count + rest.count > maxLineBytes {
            pending = Data()
            items.append(.tooLong)
            skipping = true
            return
        }
        pending.append(rest)
    }
}
