import Foundation
import MIReport
import MIStore
import MITestSupport
import Testing

/// The PDF report on real SQLite stores, written by cairo and pango, read back with poppler.
@Suite("The PDF report")
struct ReviewReportTests {
    @Test func holdsEveryQuestionAnswerCommentAndPicture() throws {
        let setup = try ReportStore()
        // Real pictures for the media: a first report without media, rendered by poppler.
        let plain = try setup.completedForm("asmith", "Plain", questions: [SampleQuestions.all[2]])
        let plainPDF = setup.dir + "/plain.pdf"
        try ReviewReport.write(plain, context: setup.context(plain), to: URL(fileURLWithPath: plainPDF), replace: false)
        let jpeg = try Poppler.picture(from: plainPDF, format: "jpeg")
        let png = try Poppler.picture(from: plainPDF, format: "png", dpi: 100)   // 827 x 1170 pixels

        var questions = SampleQuestions.all
        questions[3]["answer"] = "4.5 bar"   // a numeric answer that is not a number: a violation
        _ = try setup.completedForm("jdoe", "Pump station 4", questions: questions,
                                    media: ["Qid0(1).jpg": jpeg, "Qid0(2).png": png, "Qid1(1).m4a": Data("sample-audio".utf8)])
        _ = try setup.store.comment(try FormReference(parsing: "jdoe/Pump station 4"), text: "Bearings run hot; recheck in May",
                                    author: "mkhan")
        let review = try setup.store.review(try FormReference(parsing: "jdoe/Pump station 4"))
        let pdf = setup.dir + "/report.pdf"
        let pages = try ReviewReport.write(review, context: setup.context(review), to: URL(fileURLWithPath: pdf), replace: false)

        #expect(try Poppler.pages(pdf) == pages)
        let text = try Poppler.text(pdf)
        let raw = try Poppler.rawText(pdf)
        // Header: name, template, owner and their directory name, state, times in the site's zone.
        for expected in ["Pump station 4", "Monthly pump inspection", "jdoe (Jane Doe)", "completed",
                         "2026-11-12 10:00 +01:00", "2026-11-12 11:30 +01:00"] {
            #expect(text.contains(expected), "header lacks \(expected)")
        }
        // Every question, numbered from 1, with its typed answer.
        for (number, question) in questions.enumerated() {
            #expect(raw.contains("\(number + 1). \(question["text"] as! String)"), "question \(number + 1) missing")
        }
        for answer in ["Good", "Yes", "PX-2231-B", "Noise", "Electrical", "Drive end", "Non-drive end", "41", "39", "44", "×",
                       "泵站 4 检查 – Café Müller", "Prüfung bestanden, Gehäuse grün lackiert"] {
            #expect(text.contains(answer), "answer \(answer) missing")
        }
        #expect(!text.contains("Confined space"), "only chosen options are listed")
        // The invalid numeric answer is shown as stored, with its violation highlighted.
        #expect(text.contains("\"4.5 bar\""))
        #expect(text.contains("notANumber: question 4 'Outlet pressure (bar)'"))
        // The long comment wraps: all of it is there, over several lines.
        #expect(raw.replacingOccurrences(of: "\n", with: " ").contains("A long remark that must wrap across the line. A long remark"))
        // Foreman comments with author and time; audio by name, size and SHA-256.
        #expect(text.contains("mkhan ·"))
        #expect(text.contains("Bearings run hot; recheck in May"))
        let audio = review.media.first { $0.fileName == "Qid1(1).m4a" }!
        #expect(raw.contains("Qid1(1).m4a · audio · 12 bytes"))
        #expect(raw.replacingOccurrences(of: "\n", with: "").contains(audio.sha256))
        // Footer on every page.
        #expect(text.contains("Page 1 of \(pages)"))
        #expect(raw.replacingOccurrences(of: "\n", with: "").contains("store \(setup.dir)/store.sqlite · printed 2026-11-18 "))

        // Both pictures are in: the JPEG as its own bytes (DCT), the PNG decoded.
        let images = try Poppler.images(pdf)
        #expect(images.count == 2, "\(images)")
        #expect(images.map { $0[8] }.sorted() == ["image", "jpeg"])
        let jpegSize = try #require(images.first { $0[8] == "jpeg" })
        #expect(pdfContainsBytes(pdf, jpeg), "the JPEG is embedded as is")
        #expect(Int(jpegSize[3])! > 0 && Int(jpegSize[4])! > 0)
        // The PNG is scaled to thumbnail size (320 pixels on its long side) before it is embedded.
        let pngImage = try #require(images.first { $0[8] == "image" })
        #expect(pngImage[4] == "320" && Int(pngImage[3])! < 320, "\(pngImage)")

        // CJK renders with the installed CJK font rather than boxes.
        let fonts = try Poppler.run("pdffonts", [pdf])
        #expect(fonts.contains("WenQuanYi"), "\(fonts)")

        // The first page renders.
        let png1 = setup.dir + "/page"
        _ = try Poppler.run("pdftoppm", ["-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile", pdf, png1])
        #expect(FileManager.default.fileExists(atPath: png1 + ".png"))
    }

    @Test func aLongFormWithAWideTableSplitsAcrossPages() throws {
        let setup = try ReportStore()
        var questions: [[String: Any]] = (1...200).map { n in
            ["type": "shortAnswer", "text": "Check point \(n)", "answer": "value \(n)", "comment": n % 10 == 0 ? "note \(n)" : ""]
        }
        let rows = (1...30).map { "R\($0)" }, columns = (1...30).map { "C\($0)" }
        let cells = rows.indices.map { r in columns.indices.map { c in "\(r + 1).\(c + 1)" } }
        questions.insert(["type": "table", "text": "Thirty by thirty", "rows": rows, "columns": columns,
                          "noCells": [[0, 0]], "answer": cells.enumerated().map { r, row in
                              row.enumerated().map { c, cell in (r, c) == (0, 0) ? NSNull() : cell as Any }
                          }], at: 100)
        let review = try setup.completedForm("jdoe", "Long", questions: questions)
        let pdf = setup.dir + "/long.pdf"
        let pages = try ReviewReport.write(review, context: setup.context(review), to: URL(fileURLWithPath: pdf), replace: false)
        #expect(pages > 5)
        #expect(try Poppler.pages(pdf) == pages)
        let raw = try Poppler.rawText(pdf)
        for n in 1...200 { #expect(raw.contains("Check point \(n)\n") || raw.contains("Check point \(n) "), "question \(n)") }
        for (r, c) in [(0, 1), (14, 14), (29, 29), (29, 0)] {
            #expect(raw.contains("\(r + 1).\(c + 1)"), "cell \(r + 1).\(c + 1)")
        }
        #expect(raw.contains("Columns 1–8 of 30") && raw.contains("Columns 25–30 of 30"))
        for page in 1...pages { #expect(raw.contains("Page \(page) of \(pages)")) }
        // The table's rows continue on a following page with the header row repeated.
        let tablePages = raw.components(separatedBy: "\u{0C}").filter { $0.contains("R30") }
        #expect(tablePages.count >= 2)
    }

    /// Emoji are drawn, not shown as boxes with the code point in hex (`01F692`). Colour emoji are
    /// painted as small coloured pictures (cairo 1.16 does not embed a colour font), so the check
    /// is the page's pixels against the same report without emoji; the monochrome fallback is a
    /// real font, which `pdffonts` lists.
    @Test func emojiRenderInColourAndSymbolsInTheMonochromeFallback() throws {
        let setup = try ReportStore()
        let withEmoji = try setup.completedForm("jdoe", "Emoji", questions: [
            ["type": "shortAnswer", "text": "Vehicle 🚒 on site", "answer": "Ready ✅ crew 👷 👷‍♀️ 🔥🧯",
             "comment": "Alchemy 🜀 and sun ☀ – Müller"],
        ])
        let plain = try setup.completedForm("jdoe", "Plain", questions: [
            ["type": "shortAnswer", "text": "Vehicle on site", "answer": "Ready crew", "comment": "Alchemy and sun – Müller"],
        ])
        let emojiPDF = setup.dir + "/emoji.pdf", plainPDF = setup.dir + "/plain.pdf"
        try ReviewReport.write(withEmoji, context: setup.context(withEmoji), to: URL(fileURLWithPath: emojiPDF), replace: false)
        try ReviewReport.write(plain, context: setup.context(plain), to: URL(fileURLWithPath: plainPDF), replace: false)

        // Seven colour emoji at 100 dpi: each about 13 x 13 pixels, most of them coloured. Boxes
        // (the bug) are black and add none.
        let colouredWith = try Poppler.colouredPixels(emojiPDF), colouredWithout = try Poppler.colouredPixels(plainPDF)
        #expect(colouredWith - colouredWithout > 7 * 40, "coloured pixels: \(colouredWith) with emoji, \(colouredWithout) without")
        // Each colour emoji is a small picture with its alpha mask.
        let pictures = try Poppler.images(emojiPDF).filter { $0[2] == "image" }
        #expect(pictures.count >= 6, "\(pictures)")
        // U+1F700 is in neither DejaVu, WenQuanYi nor Noto Color Emoji: Symbola draws it, embedded.
        let fonts = try Poppler.run("pdffonts", [emojiPDF])
        #expect(fonts.contains("Symbola"), "\(fonts)")
        // The rest of the text is still text, digits too (they are in the colour font as well).
        let text = try Poppler.text(emojiPDF)
        #expect(text.contains("Vehicle") && text.contains("Müller") && text.contains("Page 1 of 1"), "\(text)")
        #expect(fonts.contains("DejaVuSans"), "\(fonts)")
    }

    @Test func anExistingFileIsReplacedOnlyWhenAsked() throws {
        let setup = try ReportStore()
        let review = try setup.completedForm("jdoe", "Pump", questions: [SampleQuestions.all[2]])
        let folder = try TempDir.make()
        let target = URL(fileURLWithPath: folder + "/pump.pdf")
        try Data("keep me".utf8).write(to: target)
        #expect(throws: (any Error).self) {
            try ReviewReport.write(review, context: setup.context(review), to: target, replace: false)
        }
        #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        try ReviewReport.write(review, context: setup.context(review), to: target, replace: true)
        #expect(try Poppler.pages(target.path) == 1)
        // Nothing but the report is left in the folder: the temporary file was renamed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["pump.pdf"])
        let missing = URL(fileURLWithPath: folder + "/no/such/folder/x.pdf")
        #expect(throws: (any Error).self) {
            try ReviewReport.write(review, context: setup.context(review), to: missing, replace: false)
        }
    }

    private func pdfContainsBytes(_ pdf: String, _ bytes: Data) -> Bool {
        guard let data = FileManager.default.contents(atPath: pdf) else { return false }
        return data.range(of: bytes) != nil
    }
}
