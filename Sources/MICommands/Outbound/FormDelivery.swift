import Foundation
import MIOutbound
import MIStore

/// What one try of one delivery came to, for `deliver`'s output.
struct DeliveryReport {
    let delivery: Delivery
    /// The office's HTTP status, nil when no answer came.
    let status: Int?
    let outcome: DeliveryOutcome
    /// Held without asking the office: the form is no longer the version submitted (reopened).
    var withdrawn = false
}

/// Sends queued deliveries to the office (`deliver`): one post per form on one connection,
/// each try recorded in its own small transaction after the post. A crash between the office's
/// answer and that record sends the form again on the next run, with the same Idempotency-Key.
final class FormDelivery {
    /// Media are read from the store in pieces of this size while libcurl sends them.
    static let pieceBytes = 256 * 1024

    let store: any StoreOutbox
    let settings: AppConfig.Delivery
    let client: HTTPSClient
    let retry: RetryPolicy
    let clock: any StoreClock
    var jitter: () -> Double = { Double.random(in: 0..<1) }

    init(store: any StoreOutbox, settings: AppConfig.Delivery, token: String?, clock: any StoreClock) throws {
        self.store = store
        self.settings = settings
        self.clock = clock
        client = try HTTPSClient(HTTPSClient.Settings(tls: settings.tls, timeoutSeconds: settings.timeoutSeconds,
                                                      bearerToken: token, allowCleartext: settings.allowCleartext))
        retry = RetryPolicy(baseSeconds: Double(settings.retryBaseSeconds), maxSeconds: Double(settings.retryMaxSeconds),
                            maxAttempts: settings.maxAttempts)
    }

    /// Tries one delivery and records the outcome. Throws ``OutboundError`` (after recording the
    /// failed try) when the office cannot be reached or its certificate does not verify: the
    /// caller stops, the rest stay queued. A local problem (a certificate file libcurl cannot
    /// read) throws without recording anything.
    func send(_ delivery: Delivery) throws -> DeliveryReport {
        let review: FormReview
        switch try store.deliveryReview(delivery) {
        case .failure(let error):
            var report = try record(delivery, status: nil, .held(error: error.message))
            report.withdrawn = true
            return report
        case .success(let value):
            review = value
        }
        let response: HTTPResponse
        do {
            // One read transaction for the whole post: the media come from one snapshot, each
            // file read in one pass as libcurl sends it.
            response = try store.withMediaReader(formId: delivery.formId) { media in
                var parts = [MultipartPart(name: "form", contentType: "application/json",
                                           content: .bytes(FormPayload.json(review, delivery: delivery)))]
                for file in review.media {
                    parts.append(MultipartPart(name: "media", fileName: file.fileName, contentType: file.contentType,
                                               content: .stream(size: file.size) { offset, count in
                        try media.bytes(file.fileName, offset: offset, count: min(count, Self.pieceBytes))
                    }))
                }
                return try client.post(settings.url, headers: ["Idempotency-Key": delivery.idempotencyKey], parts: parts)
            }
        } catch let error as OutboundError {
            switch error.kind {
            case .unreachable, .tls:
                let report = try record(delivery, status: nil, failure: error.message, retryAfter: nil)
                throw DeliveryStopped(error: error, report: report)
            case .source:
                return try record(delivery, status: nil, failure: error.message, retryAfter: nil)
            case .configuration, .refused:
                throw error
            }
        }
        switch response.status {
        case 200..<300:
            return try record(delivery, status: response.status, .sent)
        case 408, 429, 500..<600:
            return try record(delivery, status: response.status, failure: DeliveryReason.text(response), retryAfter: response.retryAfter)
        default:
            return try record(delivery, status: response.status, .held(error: DeliveryReason.text(response)))
        }
    }

    private func record(_ delivery: Delivery, status: Int?, failure: String, retryAfter: TimeInterval?) throws -> DeliveryReport {
        let attempts = delivery.attempts + 1
        if let next = retry.nextTry(after: attempts, retryAfter: retryAfter, now: clock.now(), jitter: jitter()) {
            return try record(delivery, status: status, .retry(at: next, error: failure))
        }
        return try record(delivery, status: status, .held(error: "\(failure) (gave up after \(attempts) tries)"))
    }

    private func record(_ delivery: Delivery, status: Int?, _ outcome: DeliveryOutcome) throws -> DeliveryReport {
        let after = try store.recordDeliveryTry(delivery.id, outcome: outcome)
        return DeliveryReport(delivery: after, status: status, outcome: outcome)
    }
}

/// The office could not be reached (or its certificate did not verify) during `deliver`: the
/// try was recorded; the rest stay queued.
struct DeliveryStopped: Error {
    let error: OutboundError
    let report: DeliveryReport
}
