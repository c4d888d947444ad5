// `readText`: the window captured as for `screenshot` (same size, so frames are in the image's
// pixels), then Vision's VNRecognizeTextRequest (accurate level, language correction on) over
// the image or `region` of it. Lines come back top to bottom; Vision's boxes are normalized
// with a bottom-left origin, so they are flipped and scaled into the image's pixels.
//
// NEVER COMPILED OR RUN (see README.md).
import CoreGraphics
import DeskbookHelperCore
import Foundation
import ImageIO
import Vision

enum TextRecognition {
    static func read(pid: pid_t, windowId: Int, width: Int, height: Int, region: [Int]?) throws -> JSONValue {
        let shot = try Screenshots.capture(pid: pid, windowId: windowId, width: width, height: height, format: "png", quality: 80)
        guard let base64 = shot.objectValue?["data"]?.stringValue, let data = Data(base64Encoded: base64),
              let source = CGImageSourceCreateWithData(data as CFData, nil),
              let whole = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
            throw HelperError(.failed, "the window capture could not be decoded for text recognition")
        }
        let area = region.map { CGRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) } ?? CGRect(x: 0, y: 0, width: width, height: height)
        guard let image = region == nil ? whole : whole.cropping(to: area) else {
            throw HelperError(.badRequest, "readText params: region is not inside the \(width)×\(height) image")
        }
        let request = VNRecognizeTextRequest()
        request.recognitionLevel = .accurate
        request.usesLanguageCorrection = true
        do {
            try VNImageRequestHandler(cgImage: image, options: [:]).perform([request])
        } catch {
            throw HelperError(.failed, "Vision could not read the text: \(error)")
        }
        let lines: [(Double, JSONValue)] = (request.results ?? []).compactMap { observation in
            guard let best = observation.topCandidates(1).first else { return nil }
            let box = observation.boundingBox
            let x = Double(area.minX) + Double(box.minX) * Double(area.width)
            let y = Double(area.minY) + (1 - Double(box.maxY)) * Double(area.height)
            let frame: JSONValue = .array([.number(x), .number(y),
                                           .number(Double(box.width) * Double(area.width)),
                                           .number(Double(box.height) * Double(area.height))])
            return (y, .object(["text": .string(best.string), "frame": frame, "confidence": .number(Double(best.confidence))]))
        }
        return .object(["lines": .array(lines.sorted { $0.0 < $1.0 }.map { $0.1 })])
    }
}
