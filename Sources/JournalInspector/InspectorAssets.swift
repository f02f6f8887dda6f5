import Foundation

/// The page, its script and its style, bundled as resources and read once.
///
/// Every page is the same HTML document; its script reads the path and query, asks the
/// matching `/api/` endpoint and draws the answer, so a page's URL is its whole state.
struct InspectorAssets: Sendable {
    /// The files served under `/assets/`, by name.
    static let fileNames = [
        "inspector.css": "text/css; charset=utf-8", "inspector.js": "text/javascript; charset=utf-8",
    ]

    private let html: String
    private let files: [String: [UInt8]]

    /// Reads the resources from the module's bundle.
    ///
    /// - Throws: ``InspectorError/Code/serverFailed`` when a resource is missing from the build.
    init() throws {
        guard let page = Bundle.module.url(forResource: "inspector", withExtension: "html") else {
            throw InspectorError(.serverFailed, "the inspector's page is missing from its resource bundle")
        }
        html = try String(contentsOf: page, encoding: .utf8)
        var files: [String: [UInt8]] = [:]
        for name in Self.fileNames.keys {
            let parts = name.split(separator: ".")
            guard let url = Bundle.module.url(forResource: String(parts[0]), withExtension: String(parts[1])) else {
                throw InspectorError(.serverFailed, "\(name) is missing from the inspector's resource bundle")
            }
            files[name] = Array(try Data(contentsOf: url))
        }
        self.files = files
    }

    /// The page, with the token in its links to the script and style.
    func page(token: String) -> InspectorResponse {
        InspectorResponse(
            status: 200, contentType: "text/html; charset=utf-8",
            body: Array(html.replacingOccurrences(of: "{{token}}", with: token).utf8))
    }

    /// The script or style `name`.
    ///
    /// - Throws: ``InspectorError/Code/notFound`` for any other name.
    func file(_ name: String) throws -> InspectorResponse {
        guard let bytes = files[name], let type = Self.fileNames[name] else {
            throw InspectorError(.notFound, "no asset named \(name)")
        }
        return InspectorResponse(status: 200, contentType: type, body: bytes)
    }
}
