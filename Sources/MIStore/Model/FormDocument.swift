import Foundation

/// The content of one `form.json` (see `spec/device-layout.md` and docs/store.md).
///
/// Decoding is strict: bad JSON, a missing key or a wrong type is an `.invalidInput`
/// ``StoreError`` naming the key path (`questions[2].options[1]: expected a string, found a number`).
/// Answers of the wrong shape are *not* errors: they are kept as ``Answer/malformed(_:)`` and
/// flagged by the review rules. Unknown top-level keys are kept in ``extra``; unknown question keys
/// stay in ``Question/json``; both are written back by ``jsonData()``.
public struct FormDocument: Sendable, Equatable {
    /// The keys this version understands at the top level, in the order it writes them.
    static let knownKeys = ["name", "template", "templateId", "created", "modified", "questions", "foremanComments"]

    /// Display name, unique among one owner's live forms.
    public internal(set) var name: String
    public let template: String
    public let templateId: String
    public let created: Timestamp
    public let modified: Timestamp
    public let questions: [Question]
    /// The foreman's general comment on the whole form (`foremanComments`), if any.
    /// In the store, these are ``ForemanComment`` rows; on export they are joined with newlines.
    public internal(set) var foremanComments: String?
    /// Top-level keys this version does not know, kept in their order.
    public let extra: JSONObject

    /// Decodes a `form.json`.
    public init(jsonData: Data) throws(StoreError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(jsonData)
        } catch {
            throw StoreError(.invalidInput, error.description)
        }
        do {
            try self.init(json: value)
        } catch {
            throw StoreError(.invalidInput, error.description)
        }
    }

    init(json value: JSONValue) throws(FormDecoding.Failure) {
        let fields = try FormDecoding(value, path: "")
        name = try fields.string("name")
        template = try fields.string("template")
        templateId = try fields.string("templateId")
        created = try Self.timestamp(fields, "created")
        modified = try Self.timestamp(fields, "modified")
        questions = try Self.decodeQuestions(fields.array("questions"), path: "questions")
        foremanComments = try fields.optionalString("foremanComments")
        var extra = JSONObject()
        for entry in fields.object.entries where !Self.knownKeys.contains(entry.key) {
            extra[entry.key] = entry.value
        }
        self.extra = extra
    }

    /// Rebuilds a document from its stored columns.
    init(name: String, template: String, templateId: String, created: Timestamp, modified: Timestamp,
         questionsJSON: String, extraJSON: String?, foremanComments: String?) throws {
        self.name = name
        self.template = template
        self.templateId = templateId
        self.created = created
        self.modified = modified
        self.foremanComments = foremanComments
        do {
            guard case .array(let elements) = try JSONParser.parse(Data(questionsJSON.utf8)) else {
                throw FormDecoding.Failure(keyPath: "questions", reason: "expected an array")
            }
            questions = try Self.decodeQuestions(elements, path: "questions")
            if let extraJSON, case .object(let object) = try JSONParser.parse(Data(extraJSON.utf8)) {
                extra = object
            } else {
                extra = JSONObject()
            }
        } catch {
            throw StoreError(.database, "The stored form '\(name)' is damaged: \(error)")
        }
    }

    private static func timestamp(_ fields: FormDecoding, _ key: String) throws(FormDecoding.Failure) -> Timestamp {
        let text = try fields.string(key)
        do {
            return try Timestamp(text)
        } catch {
            throw FormDecoding.Failure(keyPath: key, reason: error.message)
        }
    }

    private static func decodeQuestions(_ elements: [JSONValue], path: String) throws(FormDecoding.Failure) -> [Question] {
        var questions: [Question] = []
        for (index, element) in elements.enumerated() {
            questions.append(try Question(json: element, path: "\(path)[\(index)]"))
        }
        return questions
    }

    /// The document as a JSON object, known keys first, then ``extra``.
    public var json: JSONValue {
        var object = JSONObject([
            ("name", .string(name)),
            ("template", .string(template)),
            ("templateId", .string(templateId)),
            ("created", .string(created.text)),
            ("modified", .string(modified.text)),
            ("questions", questionsJSON),
        ])
        if let foremanComments { object["foremanComments"] = .string(foremanComments) }
        for entry in extra.entries { object[entry.key] = entry.value }
        return .object(object)
    }

    /// The `form.json` bytes: pretty-printed UTF-8, two-space indent.
    public func jsonData() -> Data { Data(JSONWriter.write(json).utf8) }

    var questionsJSON: JSONValue { .array(questions.map { .object($0.json) }) }

    /// Equal content apart from the foreman's comments (which the store keeps as separate rows).
    func sameContent(as other: FormDocument) -> Bool {
        var left = self, right = other
        left.foremanComments = nil
        right.foremanComments = nil
        return left == right
    }
}
