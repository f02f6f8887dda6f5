// An app opens a store, syncs and queries with `import MobileSync` alone. The public API names
// types of these modules, so an app would otherwise import each: `SyncStore.soups` is a
// `SoupStore` (Soups), a store takes `JournalOptions` (EventJournal), a `WallClock`
// (Determinism) and a `Logger` (Logging), a manager a `SalesforceClient` (SalesforceAPI), and
// records are `JSONValue`s (LosslessJSON).
@_exported public import Determinism
@_exported public import EventJournal
@_exported public import Logging
@_exported public import LosslessJSON
@_exported public import SalesforceAPI
@_exported public import Soups
