import Foundation
import MIOutbound

/// Why the office did not take a delivery, in words a person can act on: stored as the
/// delivery's `lastError`, shown by `deliver` and `deliveries`.
public enum DeliveryReason {
    /// What a person can act on, stored as the delivery's `lastError`: the status line
    /// (`HTTP 422 Unprocessable Entity`), then
    /// - a redirect (never followed: the form would go where nobody configured it): where to,
    ///   and that `delivery.url` wants updating;
    /// - 413: how big the body was, and that a limit (a proxy's, often) refused it;
    /// - anything else: the office's words, markup (a proxy's HTML error page) left out, cut to
    ///   one line of at most 200 characters.
    public static func text(_ response: HTTPResponse) -> String {
        let statusLine = "HTTP \(response.status)" + (response.reasonPhrase.isEmpty ? "" : " " + response.reasonPhrase)
        if (300..<400).contains(response.status) {
            guard let location = response.location, !location.isEmpty else {
                return statusLine + ": a redirect without a Location; check delivery.url"
            }
            return statusLine + " → \(location): not followed; update delivery.url"
        }
        if response.status == 413 {
            let size = response.sentBytes.map { " of " + String(format: "%.1f MiB (%d bytes)", Double($0) / 1_048_576, $0) } ?? ""
            return statusLine + ": the body\(size) (the form and its media) is larger than the receiver takes; "
                + "a proxy's limit (nginx: client_max_body_size) or the office's must be raised"
        }
        let text = Self.plainText(response.body).split(whereSeparator: \.isNewline).joined(separator: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        let short = text.count > 200 ? String(text.prefix(200)) + "…" : text
        return statusLine + (short.isEmpty ? "" : ": " + short)
    }

    /// A body's text without its markup: an HTML page's `<head>`, scripts, styles and tags go,
    /// the common entities are read; plain text passes unchanged.
    static func plainText(_ body: String) -> String {
        guard body.contains("<"), body.contains(">") else { return body }
        var text = body
        for element in ["head", "script", "style"] {
            text = text.replacingOccurrences(of: "(?s)<\(element)[^>]*>.*?</\(element)>", with: " ",
                                             options: [.regularExpression, .caseInsensitive])
        }
        text = text.replacingOccurrences(of: "(?s)<!--.*?-->", with: " ", options: .regularExpression)
        text = text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        return text
    }
}
