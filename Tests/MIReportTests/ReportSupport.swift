import Foundation
import MIReport
import MIStore
import MITestSupport

/// A store on a fresh SQLite file, filled by importing form folders written here.
struct ReportStore {
    let dir: String
    let store: FormStore

    init() throws {
        dir = try TempDir.make()
        // The store's "now" is the forms' last edit (11:30 at +01:00): a foreman's comment sets
        // `modified` to the time it was made, and the report's header shows that time.
        store = try FormStore(path: dir + "/store.sqlite", busyTimeout: 5,
                              clock: FixedClock(ISO8601DateFormatter().date(from: "2026-11-12T10:30:00Z")!))
    }

    /// Writes `Completed MIs/<owner>/<name>/form.json` (and media) and imports it; returns the review.
    @discardableResult
    func completedForm(_ owner: String, _ name: String, questions: [[String: Any]],
                       media: [String: Data] = [:]) throws -> FormReview {
        let folder = dir + "/Documents/Completed MIs/\(owner)/\(name)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let json: [String: Any] = ["name": name, "template": "Monthly pump inspection", "templateId": "T-17",
                                   "created": "2026-11-12T09:00:00Z", "modified": "2026-11-12T10:30:00Z",
                                   "questions": questions]
        try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
            .write(to: URL(fileURLWithPath: folder + "/form.json"))
        for (file, data) in media { try data.write(to: URL(fileURLWithPath: folder + "/" + file)) }
        _ = try store.importTree(at: URL(fileURLWithPath: dir + "/Documents"), actor: "importer")
        return try store.review(try FormReference(parsing: "\(owner)/\(name)"))
    }

    func context(_ review: FormReview, ownerName: String? = "Jane Doe") -> ReportContext {
        ReportContext(ownerName: ownerName, store: dir + "/store.sqlite",
                      printedAt: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "Europe/Berlin")!) { file in
            try store.mediaData(.id(review.form.id), fileName: file.fileName)
        }
    }
}

struct PopplerError: Error, CustomStringConvertible {
    let description: String
}

/// poppler-utils, as a person checking a PDF would use them.
enum Poppler {
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try Shell.run("/usr/bin/" + tool, arguments)
        guard result.status == 0 else { throw PopplerError(description: "\(tool) \(arguments): \(result.stderr)") }
        return result.stdout
    }

    static func text(_ pdf: String) throws -> String { try run("pdftotext", ["-layout", pdf, "-"]) }
    /// Raw text order (no layout): a question's text stays on one line when it fits.
    static func rawText(_ pdf: String) throws -> String { try run("pdftotext", [pdf, "-"]) }

    static func pages(_ pdf: String) throws -> Int {
        let info = try run("pdfinfo", [pdf])
        let line = info.split(separator: "\n").first { $0.hasPrefix("Pages:") }!
        return Int(line.split(separator: " ").last!)!
    }

    /// `pdfimages -list` rows: [page, num, type, width, height, color, comp, bpc, enc, ...].
    static func images(_ pdf: String) throws -> [[String]] {
        try run("pdfimages", ["-list", pdf]).split(separator: "\n").dropFirst(2)
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
    }

    /// The pixels of the first page that are clearly coloured (the largest and smallest of red,
    /// green and blue differ by more than 96 of 255), rendered by `pdftoppm` as a binary PPM.
    /// Text, rules and the hex boxes pango draws for missing glyphs are black or grey: none count.
    static func colouredPixels(_ pdf: String, dpi: Int = 100) throws -> Int {
        let base = try TempDir.make() + "/page"
        _ = try run("pdftoppm", ["-r", "\(dpi)", "-f", "1", "-l", "1", "-singlefile", pdf, base])
        let ppm = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base + ".ppm")))
        // Header: "P6", width, height, maxval (255), each followed by one whitespace byte.
        var fields: [String] = [], field = "", index = 0
        while fields.count < 4 && index < ppm.count {
            let byte = ppm[index]
            index += 1
            if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                if !field.isEmpty { fields.append(field); field = "" }
            } else {
                field.append(Character(UnicodeScalar(byte)))
            }
        }
        guard fields.count == 4, fields[0] == "P6", fields[3] == "255", let width = Int(fields[1]), let height = Int(fields[2]),
              ppm.count - index == width * height * 3
        else { throw PopplerError(description: "pdftoppm wrote no 8-bit P6 picture: \(fields)") }
        var coloured = 0
        var pixel = index
        while pixel + 2 < ppm.count {
            let (r, g, b) = (ppm[pixel], ppm[pixel + 1], ppm[pixel + 2])
            if Int(max(r, g, b)) - Int(min(r, g, b)) > 96 { coloured += 1 }
            pixel += 3
        }
        return coloured
    }

    /// A real JPEG (and PNG), made by poppler from a PDF: the first page rendered small.
    static func picture(from pdf: String, format: String, dpi: Int = 20) throws -> Data {
        let base = try TempDir.make() + "/picture"
        _ = try run("pdftoppm", ["-\(format)", "-r", "\(dpi)", "-f", "1", "-l", "1", "-singlefile", pdf, base])
        return try Data(contentsOf: URL(fileURLWithPath: base + (format == "jpeg" ? ".jpg" : ".png")))
    }
}

/// Questions of every type, answered, in the field app's JSON.
enum SampleQuestions {
    static var all: [[String: Any]] { [
        ["type": "multipleChoice", "text": "Pump condition", "options": ["Good", "Worn", "Damaged"], "Max-answers": 1,
         "answer": [0], "comment": "Prüfung bestanden, Gehäuse grün lackiert"],
        ["type": "trueFalse", "text": "Pressure relief valve tested?", "answer": true,
         "help": "Open the valve until water flows, then close it."],
        ["type": "shortAnswer", "text": "Serial number", "answer": "PX-2231-B"],
        ["type": "numeric", "text": "Outlet pressure (bar)", "answer": 4.5],
        ["type": "table", "text": "Bearing temperatures (C)", "rows": ["Motor", "Pump"], "columns": ["Drive end", "Non-drive end"],
         "noCells": [[1, 1]], "answer": [["41", "39"], ["44", NSNull()]]],
        ["type": "multipleChoice", "text": "Hazards present", "options": ["Noise", "Confined space", "Electrical"],
         "Max-answers": 0, "answer": [0, 2]],
        ["type": "shortAnswer", "text": "Site name", "answer": "泵站 4 检查 – Café Müller",
         "comment": String(repeating: "A long remark that must wrap across the line. ", count: 12)],
    ] }
}
