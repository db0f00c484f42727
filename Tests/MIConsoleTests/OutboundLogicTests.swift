import Foundation
import MICommands
import MIOutbound
import Testing

/// deliver's retry schedule and the Retry-After header, without a server.
@Suite struct OutboundLogicTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = RetryPolicy(baseSeconds: 60, maxSeconds: 3_600, maxAttempts: 5)

    @Test func backoffDoublesWithJitterUpToTheCap() {
        // jitter 0 gives half the delay, jitter → 1 the whole of it.
        #expect(policy.nextTry(after: 1, retryAfter: nil, now: now, jitter: 0) == now.addingTimeInterval(30))
        #expect(policy.nextTry(after: 1, retryAfter: nil, now: now, jitter: 1) == now.addingTimeInterval(60))
        #expect(policy.nextTry(after: 3, retryAfter: nil, now: now, jitter: 1) == now.addingTimeInterval(240))
        #expect(policy.nextTry(after: 4, retryAfter: nil, now: now, jitter: 0.5) == now.addingTimeInterval(360))
        let capped = RetryPolicy(baseSeconds: 60, maxSeconds: 3_600, maxAttempts: 100)
        #expect(capped.nextTry(after: 60, retryAfter: nil, now: now, jitter: 1) == now.addingTimeInterval(3_600))
    }

    @Test func retryAfterWinsAndTheLastTryHolds() {
        #expect(policy.nextTry(after: 2, retryAfter: 7_200, now: now, jitter: 0) == now.addingTimeInterval(7_200),
                "the office's Retry-After, even past the cap")
        #expect(policy.nextTry(after: 5, retryAfter: nil, now: now, jitter: 0) == nil, "out of tries: held")
        #expect(policy.nextTry(after: 5, retryAfter: 10, now: now, jitter: 0) == nil)
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        #expect(HTTPSClient.retryAfter("120", now: now) == 120)
        #expect(HTTPSClient.retryAfter(" 0 ", now: now) == 0)
        let date = Date(timeIntervalSince1970: 1_800_000_090)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(HTTPSClient.retryAfter(formatter.string(from: date), now: now) == 90)
        #expect(HTTPSClient.retryAfter("-5", now: now) == nil)
        #expect(HTTPSClient.retryAfter("soon", now: now) == nil)
    }

    @Test func mailMessageIsMIMEWithCRLFAndAnEncodedSubject() {
        let message = MailMessage(from: "miadmin@example.com", to: "jdoe@example.com", subject: "Prüfung\r\nBcc: x",
                                  body: "line 1\nline 2", attachment: .init(fileName: "reminders.ics",
                                  contentType: "text/calendar; method=PUBLISH", data: Data("BEGIN:VCALENDAR\r\n".utf8)),
                                  date: now, id: "abc")
        let text = String(decoding: message.bytes, as: UTF8.self)
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "every line ends in CRLF")
        #expect(text.contains("Subject: =?UTF-8?B?" + Data("PrüfungBcc: x".utf8).base64EncodedString() + "?=\r\n"),
                "no header injection through the subject")
        #expect(text.contains("Message-ID: <abc@example.com>\r\n"))
        #expect(text.contains(Data("line 1\r\nline 2".utf8).base64EncodedString()))
        #expect(text.contains("Content-Disposition: attachment; filename=\"reminders.ics\""))
        #expect(text.hasSuffix("--=_miadmin_abc--\r\n"))
    }
}
