/// Reads typed fields out of a ``JSONObject`` and names the key path of anything wrong
/// (`questions[2].Max-answers: expected an integer, found a string`).
struct FormDecoding {
    struct Failure: Error, Sendable, CustomStringConvertible {
        let keyPath: String
        let reason: String
        var description: String { keyPath.isEmpty ? reason : "\(keyPath): \(reason)" }
    }

    let object: JSONObject
    let path: String

    init(_ value: JSONValue, path: String) throws(Failure) {
        guard case .object(let object) = value else {
            throw Failure(keyPath: path, reason: "expected an object, found \(value.typeDescription)")
        }
        self.object = object
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    private func missing(_ key: String) -> Failure { Failure(keyPath: keyPath(key), reason: "missing key") }

    private func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> Failure {
        Failure(keyPath: keyPath(key), reason: "expected \(expected), found \(found.typeDescription)")
    }

    func string(_ key: String) throws(Failure) -> String {
        guard let value = present(key) else { throw missing(key) }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func optionalString(_ key: String) throws(Failure) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func int(_ key: String) throws(Failure) -> Int {
        guard let value = present(key) else { throw missing(key) }
        guard let number = value.intValue else { throw wrongType(key, "an integer", value) }
        return number
    }

    func array(_ key: String) throws(Failure) -> [JSONValue] {
        guard let value = present(key) else { throw missing(key) }
        guard case .array(let elements) = value else { throw wrongType(key, "an array", value) }
        return elements
    }

    func strings(_ key: String) throws(Failure) -> [String] {
        var result: [String] = []
        for (index, element) in try array(key).enumerated() {
            guard case .string(let text) = element else {
                throw Failure(keyPath: "\(keyPath(key))[\(index)]", reason: "expected a string, found \(element.typeDescription)")
            }
            result.append(text)
        }
        return result
    }
}
