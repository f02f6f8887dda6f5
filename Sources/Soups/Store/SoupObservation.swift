import EventJournal

/// A soup query's results or one record, yielded now and again after every commit that changes
/// it; made by ``SoupStore/observeQuery(_:pageIndex:)`` and ``SoupStore/observeRecord(_:entryId:)``.
///
/// The value is read again only after a commit of an entry that touches the soup (a local
/// change, a fetched page, a ghost cleaning, an upload of that soup, or of its children in a
/// parent/children sync), and yielded only when it differs from the last one yielded, whichever
/// process made the commit. When several commits land before the consumer asks again, it gets
/// the value after the last of them.
///
/// The observation ends (the iterator returns `nil`) when the task iterating is cancelled or
/// the journal is closed; leaving the `for` loop or dropping the iterator ends it too.
public struct SoupObservation<Element: Equatable & Sendable>: AsyncSequence, Sendable {
    public typealias Failure = SoupError

    let values: JournalValueObservation<Element>

    /// Starts observing: the first call to `next()` reads the current value.
    public func makeAsyncIterator() -> Iterator {
        Iterator(values: values.makeAsyncIterator())
    }

    /// Reads the value when asked and after commits that touch the soup.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        public typealias Failure = SoupError

        var values: JournalValueObservation<Element>.Iterator

        /// The current value on the first call; afterwards the next different value.
        ///
        /// - Returns: `nil` once the task is cancelled or the journal is closed.
        /// - Throws: ``SoupError/Code/unknownSoup`` when the soup does not exist (or was
        ///   dropped), what the query itself throws, ``SoupError/Code/storage`` for storage
        ///   trouble; the observation then ends.
        public mutating func next() async throws(SoupError) -> Element? {
            do {
                return try await values.next()
            } catch {
                throw SoupStore.wrap(error)
            }
        }
    }
}
