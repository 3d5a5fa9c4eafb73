extension Array {
    /// Whether `other` is this very array's storage (the same buffer, the same count), not only an
    /// equal array: the merge memo's test that a cached search hands back the lists it merged last.
    ///
    /// SAFETY: the buffer pointers are compared as addresses only, never read or written, and do not
    /// leave the closures they are given to.
    package func sharesStorage(with other: [Element]) -> Bool {
        withUnsafeBufferPointer { mine in
            other.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress && mine.count == theirs.count }
        }
    }
}
