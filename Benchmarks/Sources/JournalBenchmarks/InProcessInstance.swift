import Foundation

/// The instance URL a client uses with the in-process transport, which never resolves it.
enum InProcessInstance {
    static let url: URL = {
        // A `.invalid` name (RFC 2606) can never reach a real host, should a request escape.
        guard let url = URL(string: "http://in-process.invalid") else {
            preconditionFailure("the in-process instance URL is a valid URL")
        }
        return url
    }()
}
