import Foundation

extension Question {
    /// The text a technician wrote or picked for this question, as `forms --search` looks into
    /// it: a short answer, the cells of a table, the labels of the chosen options, a numeric
    /// answer as written in form.json, and the technician's comment.
    public var searchableTexts: [String] {
        var texts: [String] = []
        switch answer {
        case .shortAnswer(let text)?: texts.append(text)
        case .table(let rows)?: texts += rows.flatMap { $0.compactMap { $0 } }
        case .multipleChoice(let chosen)?: texts += chosen.compactMap { options.indices.contains($0) ? options[$0] : nil }
        case .numeric?, .malformed?: if let value = json["answer"] { texts.append(value.searchText) }
        case .trueFalse?, nil: break
        }
        if let comment, !comment.isEmpty { texts.append(comment) }
        return texts
    }
}

/// `forms --search`: whether a form's answers hold a text, ignoring case.
enum AnswerSearch {
    /// True when one of the questions in `questionsJSON` (the `questions` column) has `text` in
    /// one of its ``Question/searchableTexts``. A question the store cannot decode is searched
    /// as its raw JSON text, so a malformed form is still found.
    static func matches(_ text: String, questionsJSON: String) -> Bool {
        guard case .array(let elements)? = try? JSONParser.parse(Data(questionsJSON.utf8)) else {
            return questionsJSON.range(of: text, options: .caseInsensitive) != nil
        }
        for (index, element) in elements.enumerated() {
            let texts = (try? Question(json: element, path: "questions[\(index)]"))?.searchableTexts ?? [element.searchText]
            if texts.contains(where: { $0.range(of: text, options: .caseInsensitive) != nil }) { return true }
        }
        return false
    }

    /// A LIKE pattern every row whose `questions` holds `text` matches (the cheap first cut the
    /// store makes before decoding), or nil when `text` could be written escaped in JSON
    /// (non-ASCII, quotes, backslashes, slashes, control characters) and the text of the column
    /// is no guide. ASCII letters compare ignoring case (`lower(questions) LIKE ?`).
    static func likePrefilter(_ text: String) -> String? {
        guard text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && !"\"\\/".unicodeScalars.contains($0) })
        else { return nil }
        return "%" + LikePattern.escaped(text.lowercased()) + "%"
    }
}

/// A LIKE pattern from user text, with `\` as the escape character (`ESCAPE '\'` on both engines).
enum LikePattern {
    /// `text` matched literally.
    static func escaped(_ text: String) -> String {
        var result = ""
        for ch in text {
            if ch == "%" || ch == "_" || ch == "\\" { result.append("\\") }
            result.append(ch)
        }
        return result
    }

    /// A glob (`*`, `?`, `\` escaping the next character) as a LIKE pattern, with ASCII letters
    /// lowered for `lower(column) LIKE ?` (both engines lower ASCII letters only, so other
    /// letters are left as typed).
    static func glob(_ pattern: String) -> String {
        var result = ""
        var escaping = false
        for ch in pattern {
            let lowered: Character = ch.isASCII ? Character(ch.lowercased()) : ch
            if escaping {
                result += escaped(String(lowered))
                escaping = false
                continue
            }
            switch ch {
            case "\\": escaping = true
            case "*": result.append("%")
            case "?": result.append("_")
            default: result += escaped(String(lowered))
            }
        }
        if escaping { result += "\\\\" }
        return result
    }
}

extension JSONValue {
    /// The value as compact JSON text (a string without its quotes).
    var searchText: String {
        if case .string(let text) = self { return text }
        return JSONWriter.compact(self)
    }
}
