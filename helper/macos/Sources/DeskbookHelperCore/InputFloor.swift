// The dialog-and-input rule, as helper/linux/input-floor.ts: synthetic input and approval
// dialogs never overlap. An input sequence waits while a dialog is shown (a posted Space or
// click must not answer it) and runs one at a time; a dialog waits for the input sequence
// already running, and a dialog that waits goes before input that waits; dialogs do not wait
// for each other. An Escape while a dialog is shown, or just after one closed, dismissed that
// dialog and is not the user's stop. The same cases drive both helpers' tests:
// test/fixtures/input-dialog-rule.json.
import Foundation

public final class InputFloor: @unchecked Sendable {
    /// How long an Escape after the last dialog closed still counts as the dialog's.
    public static let escapeGraceMs: Double = 500
    /// How long input waits for the floor: the dialog's 60 s, and a margin.
    public static let inputWait: TimeInterval = 65

    /// Who holds the floor, who waits, and when the last dialog closed. Pure, so the table
    /// drives it step by step; `InputFloor` below adds the waiting.
    public struct State {
        public enum Kind: Equatable { case input, dialog }
        public enum Answer: Equatable { case go, wait }

        public private(set) var input: Int?
        public private(set) var shown: Set<Int> = []
        private var waiting: [(kind: Kind, id: Int)] = []
        private var lastClosedAt: Double?

        public init() {}

        public mutating func requestInput(_ id: Int) -> Answer {
            if input == nil && shown.isEmpty && waiting.isEmpty {
                input = id
                return .go
            }
            waiting.append((.input, id))
            return .wait
        }

        public mutating func requestDialog(_ id: Int) -> Answer {
            if input == nil {
                shown.insert(id)
                return .go
            }
            waiting.append((.dialog, id))
            return .wait
        }

        /// The ids that hold the floor now, in order.
        public mutating func inputDone(_ id: Int) -> [Int] {
            if input == id { input = nil }
            return grant()
        }

        public mutating func dialogDone(_ id: Int, at now: Double) -> [Int] {
            if shown.remove(id) != nil && shown.isEmpty { lastClosedAt = now }
            return grant()
        }

        /// A waiter that stopped waiting (its time ran out).
        public mutating func giveUp(_ id: Int) -> [Int] {
            waiting.removeAll { $0.id == id }
            return grant()
        }

        public func escapeIsSwallowed(at now: Double) -> Bool {
            if !shown.isEmpty { return true }
            guard let closed = lastClosedAt else { return false }
            return now - closed < InputFloor.escapeGraceMs
        }

        private mutating func grant() -> [Int] {
            guard input == nil else { return [] }
            let dialogs = waiting.filter { $0.kind == .dialog }.map { $0.id }
            if !dialogs.isEmpty {
                waiting.removeAll { $0.kind == .dialog }
                shown.formUnion(dialogs)
                return dialogs
            }
            guard shown.isEmpty, let next = waiting.first else { return [] }
            waiting.removeFirst()
            input = next.id
            return [next.id]
        }
    }

    private let condition = NSCondition()
    private var state = State()
    private var granted: Set<Int> = []
    private var nextId = 0
    private let nowMs: () -> Double
    private let inputWait: TimeInterval

    public init(inputWait: TimeInterval = InputFloor.inputWait,
                nowMs: @escaping () -> Double = { Date().timeIntervalSince1970 * 1000 }) {
        self.inputWait = inputWait
        self.nowMs = nowMs
    }

    /// Runs one input sequence with the floor held; `failed` when a dialog kept it longer than `inputWait`.
    public func holdInput<T>(_ body: () throws -> T) throws -> T {
        condition.lock()
        let id = newId()
        if state.requestInput(id) == .wait {
            let deadline = Date().addingTimeInterval(inputWait)
            while !granted.contains(id) {
                if !condition.wait(until: deadline) && !granted.contains(id) {
                    wake(state.giveUp(id))
                    condition.unlock()
                    throw HelperError(.failed, "input is held while an approval dialog is open; answer the dialog, then send the input again")
                }
            }
            granted.remove(id)
        }
        condition.unlock()
        defer { release { $0.inputDone(id) } }
        return try body()
    }

    /// Shows a dialog with the floor held: after the input sequence running, before input waiting.
    public func holdDialog<T>(_ body: () throws -> T) rethrows -> T {
        condition.lock()
        let id = newId()
        if state.requestDialog(id) == .wait {
            while !granted.contains(id) { condition.wait() }
            granted.remove(id)
        }
        condition.unlock()
        defer {
            let closedAt = nowMs()
            release { $0.dialogDone(id, at: closedAt) }
        }
        return try body()
    }

    /// True when an Escape now dismissed a dialog rather than asking to stop.
    public func escapeIsSwallowed() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return state.escapeIsSwallowed(at: nowMs())
    }

    /// True while a dialog is shown (for tests and the menu).
    public var dialogShown: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !state.shown.isEmpty
    }

    private func newId() -> Int {
        nextId += 1
        return nextId
    }

    private func release(_ change: (inout State) -> [Int]) {
        condition.lock()
        wake(change(&state))
        condition.unlock()
    }

    /// Under the lock: marks the ids that now hold the floor and wakes every waiter to look.
    private func wake(_ ids: [Int]) {
        if ids.isEmpty { return }
        granted.formUnion(ids)
        condition.broadcast()
    }
}
