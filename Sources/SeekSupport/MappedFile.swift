#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped into memory read-only, for a search through a large one (`seek` looks for its build
/// id in the `seek-hosts` executable beside it) without reading it all first.
package enum MappedFile {
    /// `body` given the whole file at `path`; nil when it cannot be opened, is empty or cannot be mapped.
    ///
    /// SAFETY: the mapping is `size` bytes (the file's size from `fstat` on the open descriptor), made
    /// private and read-only, and unmapped when `body` returns: the view handed to `body` covers it
    /// exactly and must not be kept. As with any mapping, a file another process truncates meanwhile
    /// faults (SIGBUS) on a read past its new end: map only files that are replaced, not rewritten.
    package static func reading<Result>(_ path: String, _ body: (ByteView) throws -> Result) rethrows -> Result? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0, let size = Int(exactly: status.st_size) else { return nil }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else { return nil }
        defer { munmap(mapped, size) }
        return try body(ByteView(UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)))
    }
}
