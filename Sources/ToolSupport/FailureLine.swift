import Foundation

/// The one line a tool prints for a failure: the error's own message, never a dump.
///
/// Library errors already describe themselves in one sentence. Foundation's errors print as
/// `Error Domain=NSCocoaErrorDomain Code=516 … UserInfo={…}` and `DecodingError`s as a nested
/// value; scripts and people get their meaning instead, and every line break becomes a space.
public enum FailureLine {
    /// The line for `error`, without the tool's name and without a trailing newline.
    public static func text(for error: any Error) -> String {
        oneLine(description(of: error))
    }

    /// `text` with every line break replaced by a space.
    public static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func description(of error: any Error) -> String {
        switch error {
        case let error as DecodingError:
            return decodingDescription(error)
        case let error as CocoaError:
            let path = (error.userInfo[NSFilePathErrorKey] as? String) ?? error.url?.path
            return path.map { "\($0): \(error.localizedDescription)" } ?? error.localizedDescription
        default:
            let text = String(describing: error)
            // Any other bridged NSError prints its domain and user info: keep the sentence.
            guard text.hasPrefix("Error Domain=") else { return text }
            return (error as NSError).localizedDescription
        }
    }

    private static func decodingDescription(_ error: DecodingError) -> String {
        let context: DecodingError.Context
        switch error {
        case .dataCorrupted(let found), .keyNotFound(_, let found), .typeMismatch(_, let found),
            .valueNotFound(_, let found):
            context = found
        @unknown default:
            return "the JSON is not what was expected"
        }
        let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
        return "the JSON is not what was expected" + (path.isEmpty ? "" : " at \(path)") + ": "
            + (underlying ?? context.debugDescription)
    }
}
