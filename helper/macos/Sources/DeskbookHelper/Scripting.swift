// `runScript`: AppleScript or JXA through /usr/bin/osascript, after ScriptPolicy's refusals and
// the approval gate for every app the script names. A script that names no app drives none
// and needs no approval. 60 s at most; the output is what osascript prints.
//
// NEVER COMPILED OR RUN (see README.md).
import DeskbookHelperCore
import Foundation

enum Scripting {
    static let timeoutSeconds = 60.0

    static func run(language: String, source: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/osascript")
        process.arguments = language == "jxa" ? ["-l", "JavaScript", "-"] : ["-"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(Data(source.utf8))
        input.fileHandleForWriting.closeFile()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            throw HelperError(.failed, "the script ran longer than \(Int(timeoutSeconds)) s and was stopped")
        }
        let printed = String(data: output.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
        guard process.terminationStatus == 0 else {
            let message = String(data: errors.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
            throw HelperError(.failed, "the script failed: \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return printed.trimmingCharacters(in: .newlines)
    }
}
