/// Member names of Mobile SDK's JSON (sync options, sync targets) that the journal's sync
/// entries also use as header names (``SyncHeader``): each declared once, here.
enum MobileSDKKey {
    /// A target's id field: `options`-level in targets, a header of pages, cleanings and uploads.
    static let idFieldName = "idFieldName"
    /// A sync's merge mode: in `options`, and a header of pages and uploads.
    static let mergeMode = "mergeMode"
}
