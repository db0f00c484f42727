import MICommands
import MIOutbound
import Testing

/// The reason a held delivery carries: the status line, what to do about a redirect or a size
/// limit, and the office's words without a proxy's markup.
@Suite struct DeliveryReasonTests {
    @Test func aProxysHTMLPageLeavesItsWordsOnly() {
        let nginx = """
            <html>\r
            <head><title>502 Bad Gateway</title><style>body { width: 35em; }</style></head>\r
            <body>\r
            <center><h1>502 Bad Gateway</h1></center>\r
            <hr><center>nginx/1.22.1</center>\r
            </body>\r
            </html>
            """
        #expect(DeliveryReason.text(HTTPResponse(status: 502, retryAfter: nil, body: nginx, reasonPhrase: "Bad Gateway"))
                == "HTTP 502 Bad Gateway: 502 Bad Gateway nginx/1.22.1")
        #expect(DeliveryReason.text(HTTPResponse(status: 422, retryAfter: nil, body: "unprocessable: T-17 &amp; more\n"))
                == "HTTP 422: unprocessable: T-17 &amp; more", "plain text is not HTML")
    }

    @Test func aRedirectNamesWhereToAndTheSetting() {
        #expect(DeliveryReason.text(HTTPResponse(status: 308, retryAfter: nil, body: "", reasonPhrase: "Permanent Redirect",
                                                 location: "https://office.example/mi/v2/forms"))
                == "HTTP 308 Permanent Redirect → https://office.example/mi/v2/forms: not followed; update delivery.url")
        #expect(DeliveryReason.text(HTTPResponse(status: 301, retryAfter: nil, body: ""))
                == "HTTP 301: a redirect without a Location; check delivery.url")
    }

    @Test func aBodyTooLargeNamesItsSizeAndTheLimit() {
        let text = DeliveryReason.text(HTTPResponse(status: 413, retryAfter: nil, body: "<html><body>too large</body></html>",
                                                    reasonPhrase: "Request Entity Too Large", sentBytes: 3 << 20))
        #expect(text == "HTTP 413 Request Entity Too Large: the body of 3.0 MiB (3145728 bytes) (the form and its media) is larger than the "
                + "receiver takes; a proxy's limit (nginx: client_max_body_size) or the office's must be raised", "\(text)")
    }
}
