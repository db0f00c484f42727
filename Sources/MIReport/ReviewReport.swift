import CPangoCairo
import Foundation
import MIFiles
import MIStore

/// What a report needs besides the review: who the owner is, where the data came from, when it
/// is printed and in which time zone, and the media bytes (read one file at a time).
public struct ReportContext {
    /// The owner's name from the directory; nil when the directory does not know them.
    public var ownerName: String?
    /// The store the form comes from (its path), for the footer.
    public var store: String
    public var printedAt: Date
    /// The site's time zone: created, modified, comment and printing times are shown in it.
    public var timeZone: TimeZone
    /// The bytes of a media file of the form.
    public var mediaData: (MediaFile) throws -> Data

    public init(ownerName: String?, store: String, printedAt: Date, timeZone: TimeZone,
                mediaData: @escaping (MediaFile) throws -> Data) {
        self.ownerName = ownerName
        self.store = store
        self.printedAt = printedAt
        self.timeZone = timeZone
        self.mediaData = mediaData
    }
}

/// The printable review of a form, as a foreman prints it from the field app (seed 001, step 4):
/// a header, every question with its typed answer, comment, rule violations and media
/// (pictures as thumbnails, other media by name, size and SHA-256), the foremen's comments,
/// and on every page a footer with the store, the time of printing and "Page N of M".
public enum ReviewReport {
    /// Writes the report of `review` to `destination` through a temporary file in the same folder,
    /// renamed into place; an existing file is replaced only when `replace` is true.
    /// Returns the number of pages.
    @discardableResult
    public static func write(_ review: FormReview, context: ReportContext, to destination: URL,
                             replace: Bool) throws -> Int {
        try ReportFile.write(to: destination, replace: replace) { file in
            try render(review, context: context, into: file)
        }
    }

    /// The same, into the file `name` of an opened folder (`report --dir`: the folder is opened
    /// once, and every report is written through its descriptor).
    @discardableResult
    public static func write(_ review: FormReview, context: ReportContext, named name: String, in folder: Folder,
                             replace: Bool) throws -> Int {
        try ReportFile.write(name, in: folder, replace: replace) { file in
            try render(review, context: context, into: file)
        }
    }

    /// What ``write(_:context:to:replace:)`` would do, writing nothing (a dry run): the folder
    /// is opened and what is at the name checked as for a write, and the report is laid out
    /// to count its pages.
    public static func pages(_ review: FormReview, context: ReportContext, to destination: URL,
                             replace: Bool) throws -> Int {
        let opened = try ReportFile.parent(of: destination)
        return try pages(review, context: context, named: opened.name, in: opened.folder, replace: replace)
    }

    /// The same for the file `name` of an opened folder; nil `folder`: one that does not exist
    /// yet (`report --dir` would create it), so nothing is there to check.
    public static func pages(_ review: FormReview, context: ReportContext, named name: String, in folder: Folder?,
                             replace: Bool) throws -> Int {
        if let folder { try ReportFile.check(name, in: folder, replace: replace) }
        return try Layout(canvas: PDFCanvas(file: nil, title: title(review)), review: review, context: context,
                          pageCount: nil).run()
    }

    /// Lays the report out twice: once to count pages, once into `file`.
    static func render(_ review: FormReview, context: ReportContext, into file: NewFile) throws -> Int {
        let counting = try PDFCanvas(file: nil, title: title(review))
        let pages = try Layout(canvas: counting, review: review, context: context, pageCount: nil).run()
        let canvas = try PDFCanvas(file: file, title: title(review))
        return try Layout(canvas: canvas, review: review, context: context, pageCount: pages).run()
    }

    private static func title(_ review: FormReview) -> String { "\(review.form.owner) - \(review.form.name)" }
}

/// One pass of the report's layout over a canvas.
private struct Layout {
    let canvas: PDFCanvas
    let review: FormReview
    let context: ReportContext
    let pageCount: Int?
    let time: DateFormatter

    static let grey: RGB = (0.4, 0.4, 0.4)
    static let red: RGB = (0.7, 0.0, 0.0)
    static let warningBackground: RGB = (1.0, 0.9, 0.88)
    static let headerBackground: RGB = (0.9, 0.9, 0.9)
    static let noCellBackground: RGB = (0.82, 0.82, 0.82)
    static let thumbnailWidth = 150.0, thumbnailHeight = 112.0

    init(canvas: PDFCanvas, review: FormReview, context: ReportContext, pageCount: Int?) {
        self.canvas = canvas
        self.review = review
        self.context = context
        self.pageCount = pageCount
        time = DateFormatter()
        time.locale = Locale(identifier: "en_US_POSIX")
        time.timeZone = context.timeZone
        time.dateFormat = "yyyy-MM-dd HH:mm xxx"
    }

    func run() throws -> Int {
        let printed = time.string(from: context.printedAt)
        let store = context.store
        let total = pageCount
        canvas.footer = "miadmin · store \(store) · printed \(printed)"
        canvas.pageLabel = { page in "Page \(page)" + (total.map { " of \($0)" } ?? "") }
        header()
        for question in review.questions { try self.question(question) }
        formViolations()
        foremanComments()
        return try canvas.finish()
    }

    private func header() {
        let form = review.form
        canvas.paragraph(form.name, style: .title, after: 6)
        let owner = context.ownerName.map { "\(form.owner) (\($0))" } ?? "\(form.owner) (not in the directory)"
        let lines = [
            "Template: \(form.template)",
            "Owner: \(owner)",
            "State: \(form.state.rawValue)",
            "Created: \(time.string(from: form.created.date))    Modified: \(time.string(from: form.modified.date))",
            "Form \(form.id), version \(form.version), \(review.questions.count) questions, \(review.media.count) media files",
        ]
        for line in lines { canvas.paragraph(line, style: .body, after: 1) }
        canvas.y += 6
        canvas.rule(after: 8)
    }

    private func question(_ question: QuestionReview) throws {
        canvas.ensure(48)   // keep a heading with the start of its answer
        canvas.paragraph("\(question.number). \(question.text)", style: .heading, after: 1)
        canvas.paragraph(kindDescription(question), style: .small, color: Self.grey, after: 2)
        if let help = question.help, !help.isEmpty {
            canvas.paragraph("Help: \(help)", style: .smallItalic, color: Self.grey, after: 3)
        }
        answer(question)
        if !question.comment.isEmpty {
            canvas.paragraph("Comment: \(question.comment)", style: .body, indent: 12, after: 3)
        }
        for violation in question.violations {
            canvas.paragraph("⚠ \(violation.rule): \(violation.message)", style: .bodyBold, indent: 12,
                             color: Self.red, background: Self.warningBackground, after: 2)
        }
        try media(question.media)
        canvas.y += 4
        canvas.rule(after: 8)
    }

    private func kindDescription(_ question: QuestionReview) -> String {
        switch question.kind {
        case .multipleChoice: return "multiple choice"
        case .trueFalse: return "yes / no"
        case .shortAnswer: return "short answer"
        case .numeric: return "number"
        case .table: return "table"
        }
    }

    private func answer(_ question: QuestionReview) {
        switch question.answer {
        case nil:
            if let invalid = question.invalidAnswer {
                canvas.paragraph("Answer as stored (not valid for this question): \(invalid)", style: .body, indent: 12,
                                 color: Self.red, background: Self.warningBackground)
            } else {
                canvas.paragraph("(not answered)", style: .smallItalic, indent: 12, color: Self.grey)
            }
        case .shortAnswer(let text)?:
            canvas.paragraph(text.isEmpty ? "(empty)" : text, style: .body, indent: 12)
        case .numeric(_, let literal)?:
            canvas.paragraph(literal, style: .bodyBold, indent: 12)
        case .trueFalse(let flag)?:
            canvas.paragraph(flag ? "Yes" : "No", style: .bodyBold, indent: 12)
        case .multipleChoice(let names)?:
            if names.isEmpty { canvas.paragraph("(no option chosen)", style: .smallItalic, indent: 12, color: Self.grey) }
            for name in names { canvas.paragraph("☑ \(name)", style: .body, indent: 12, after: 1) }
            canvas.y += 2
        case .table(let table)?:
            TableDrawing(canvas: canvas, table: table).draw(indent: 12)
        }
    }

    /// Pictures as thumbnails, three to a row, each with its name and size; other media listed
    /// with name, kind, size and SHA-256.
    private func media(_ files: [MediaFile]) throws {
        guard !files.isEmpty else { return }
        let pictures = files.filter { ["jpg", "jpeg", "png"].contains($0.ext.lowercased()) }
        let others = files.filter { !["jpg", "jpeg", "png"].contains($0.ext.lowercased()) }
        let indent = 12.0, gap = 12.0, caption = 22.0
        let perRow = max(1, Int((canvas.width - indent + gap) / (Self.thumbnailWidth + gap)))
        for start in stride(from: 0, to: pictures.count, by: perRow) {
            canvas.ensure(Self.thumbnailHeight + caption)
            let top = canvas.y
            for (offset, file) in pictures[start..<min(start + perRow, pictures.count)].enumerated() {
                let x = canvas.left + indent + Double(offset) * (Self.thumbnailWidth + gap)
                if canvas.drawing { try picture(file, x: x, y: top) }
                let label = TextLayout(canvas, "\(file.fileName) · \(Self.bytes(file.size))", style: .small,
                                       width: Self.thumbnailWidth, maxLines: 2)
                if canvas.drawing { label.draw(at: x, top: top + Self.thumbnailHeight + 2, color: Self.grey) }
            }
            canvas.y = top + Self.thumbnailHeight + caption + 4
        }
        for file in others {
            canvas.paragraph("\(file.fileName) · \(Self.mediaKind(file.ext)) · \(Self.bytes(file.size)) · SHA-256 \(file.sha256)",
                             style: .small, indent: indent, after: 2)
        }
    }

    private func picture(_ file: MediaFile, x: Double, y: Double) throws {
        let data = try context.mediaData(file)
        guard let image = ReportImage(data: data, ext: file.ext) else {
            canvas.stroke(x: x, y: y, width: Self.thumbnailWidth, height: Self.thumbnailHeight, color: Self.grey)
            TextLayout(canvas, "cannot show this picture (\(file.ext), SHA-256 \(file.sha256.prefix(16))…)", style: .small,
                       width: Self.thumbnailWidth - 8).draw(at: x + 4, top: y + 4, color: Self.red)
            return
        }
        let size = image.fitted(maxWidth: Self.thumbnailWidth, maxHeight: Self.thumbnailHeight)
        image.draw(on: canvas.cr, x: x, y: y + (Self.thumbnailHeight - size.height), width: size.width, height: size.height)
        canvas.stroke(x: x, y: y + (Self.thumbnailHeight - size.height), width: size.width, height: size.height,
                      color: (0.7, 0.7, 0.7), lineWidth: 0.3)
    }

    private func formViolations() {
        let general = review.violations.filter { violation in
            violation.question.map { !review.questions.indices.contains($0) } ?? true
        }
        guard !general.isEmpty else { return }
        canvas.ensure(40)
        canvas.paragraph("Rule violations of the form", style: .heading, after: 4)
        for violation in general {
            canvas.paragraph("⚠ \(violation.rule): \(violation.message)", style: .bodyBold, color: Self.red,
                             background: Self.warningBackground, after: 2)
        }
        canvas.y += 6
    }

    private func foremanComments() {
        canvas.ensure(40)
        canvas.paragraph("Foreman comments", style: .heading, after: 4)
        if review.foremanComments.isEmpty {
            canvas.paragraph("(none)", style: .smallItalic, color: Self.grey)
        }
        for comment in review.foremanComments {
            canvas.paragraph("\(comment.author) · \(time.string(from: comment.at))", style: .bodyBold, after: 1)
            canvas.paragraph(comment.text, style: .body, indent: 12, after: 5)
        }
    }

    static func bytes(_ count: Int) -> String { "\(count) bytes" }

    static func mediaKind(_ ext: String) -> String {
        switch ext.lowercased() {
        case "mp4", "mov": return "video"
        case "m4a", "caf", "wav": return "audio"
        case "jpg", "jpeg", "png", "heic": return "picture"
        default: return "file"
        }
    }
}
