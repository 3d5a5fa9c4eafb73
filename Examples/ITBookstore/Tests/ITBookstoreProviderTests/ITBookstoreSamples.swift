import Foundation
import ITBookstoreProvider
import SeekCore
import SeekKit
import SeekHTTPClient
import SeekLoopback
import SeekTesting

/// Small IT Bookstore bodies of our own, in the API's shapes (`total` and `page` are strings).
enum ITBookSamples {
    static let search = """
    {"error": "0", "total": "48", "page": "1", "books": [
     {"title": "Securing DevOps", "subtitle": "Security in the Cloud", "isbn13": "9781617294136", "price": "$26.98",
      "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136"},
     {"title": "MongoDB in Action, 2nd Edition", "subtitle": "Covers MongoDB version 3.0", "isbn13": "9781617291609",
      "price": "$32.10", "image": "https://itbook.store/img/books/9781617291609.png",
      "url": "https://itbook.store/books/9781617291609"}
    ]}
    """
    /// What the API answers when nothing matched: no `page`, an empty list.
    static let empty = #"{"error": "0", "total": "0", "books": []}"#
    static let book = """
    {"error": "0", "title": "Securing DevOps", "subtitle": "Security in the Cloud",
     "authors": "Julien Vehent, Jane Q. Reviewer", "publisher": "Manning", "language": "English",
     "isbn10": "1617294136", "isbn13": "9781617294136", "pages": "384", "year": "2018", "rating": "5",
     "desc": "An application running in the cloud can benefit from incredible efficiencies.", "price": "$26.98",
     "image": "https://itbook.store/img/books/9781617294136.png", "url": "https://itbook.store/books/9781617294136",
     "pdf": {"Chapter 2": "https://itbook.store/files/9781617294136/chapter2.pdf"}}
    """
    static let new = """
    {"error": "0", "total": "3", "books": [
     {"title": "Learning Go", "subtitle": "", "isbn13": "9781492077213", "price": "$29.99",
      "image": "https://itbook.store/img/books/9781492077213.png", "url": "https://itbook.store/books/9781492077213"},
     {"title": "Fluent Python, 2nd Edition", "subtitle": "", "isbn13": "9781492056355", "price": "$41.99",
      "image": "https://itbook.store/img/books/9781492056355.png", "url": "https://itbook.store/books/9781492056355"},
     {"title": "Designing Data-Intensive Applications", "subtitle": "", "isbn13": "9781449373320", "price": "$40.00",
      "image": "https://itbook.store/img/books/9781449373320.png", "url": "https://itbook.store/books/9781449373320"}
    ]}
    """
    /// An error: HTTP 200, `error` other than "0".
    static let invalid = #"{"error": "[books] Invalid request: 9780000000002"}"#
}

/// Runs `body` with a fixture server and an IT Bookstore provider pointed at `/itbook` on it.
func withITBook<T>(_ body: (ITBookstoreProvider, FixtureServer) async throws -> T) async throws -> T {
    let server = try await FixtureServer.start()
    let transport = AsyncHTTPTransport()
    do {
        let provider = ITBookstoreProvider(baseURL: server.url("/itbook"), transport: transport)
        let result = try await body(provider, server)
        try await transport.shutdown()
        try await server.shutdown()
        return result
    } catch {
        try? await transport.shutdown()
        try? await server.shutdown()
        throw error
    }
}

/// The `SeekError` an operation throws, or nil when it throws something else or nothing.
func seekError(_ operation: () async throws -> Void) async -> SeekError? {
    do {
        try await operation()
        return nil
    } catch {
        return error as? SeekError
    }
}
