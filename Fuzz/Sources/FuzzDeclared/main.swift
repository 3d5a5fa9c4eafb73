import DeclaredProvider
import Foundation
import FuzzSupport
import SeekKit
import SeekCore

/// A provider declared in a config file (`jsonProviders`), searching and reading details on any body.
/// The declaration reads Open Library's shapes (so its recorded answers are the seeds) and uses every
/// kind of field: paths into arrays, a split, attributes, an error path, a total. The first input byte
/// chooses the call (bits 0…1: search, detail, trending, a search paged by offset), the status (bits
/// 2…4, `fuzzStatuses`) and the request (bits 5…7, `fuzzRequest`); the rest is the body.
let declarations = """
{"jsonProviders": [
  {"id": "fuzzbooks", "name": "Fuzz Books", "kind": "book",
   "searchURL": "https://declared.invalid/search.json?q={query}&page={page}&limit={limit}&k={key}",
   "detailURL": "https://declared.invalid/works/{id}.json?k={key}",
   "trendingURL": "https://declared.invalid/trending.json?limit={limit}&k={key}",
   "itemsPath": "docs", "totalPath": "numFound", "errorPath": "error", "okValues": ["0", ""],
   "pageSize": 20, "imageSize": "large", "keyEnv": "FUZZ_BOOKS_KEY",
   "fields": {
     "id": "key", "title": "title", "subtitle": "subtitle", "creators": {"path": "author_name", "split": ","},
     "year": "first_publish_year", "isbn": "isbn", "image": "cover_url", "thumbnail": "covers.0",
     "url": "key", "description": "description.value", "publishers": "publishers",
     "date": "publish_date", "pages": "number_of_pages", "subjects": {"path": "subjects", "split": " -- "}
   },
   "attributes": {"firstSentence": "first_sentence.value", "revision": "revision", "authors": "authors.author.key"}
  },
  {"id": "fuzzoffset", "kind": "gif",
   "searchURL": "https://declared.invalid/v1/search?q={query}&offset={offset}&limit={limit}",
   "itemsPath": "data", "totalPath": "pagination.total_count",
   "fields": {"id": "id", "title": "title", "url": "url", "image": "images.original.url", "date": "import_datetime"}
  }
]}
"""

let settings: Settings = {
    guard let file = try? JSONValue(parsing: Data(declarations.utf8)) else { fatalError("the declarations do not parse") }
    return Settings(environment: ["FUZZ_BOOKS_KEY": "fuzz/key?0123"], file: file)
}()

let factories: [ProviderFactory] = {
    do {
        let made = try JSONDeclaredProvider.factories(settings: settings)
        guard made.count == 2 else { fatalError("expected two declared providers, got \(made.count)") }
        return made
    } catch {
        fatalError("the declarations are invalid: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzProvider(data, size, settings: settings, factory: { factories[$0 & 0x03 == 3 ? 1 : 0] }) { provider, selector in
        switch selector & 0x03 {
        case 1:
            let id = ItemID(provider: provider.descriptor.id, value: "OL45804W")
            let detail = try await provider.detail(id)
            _ = try? detail.verify(answers: id, from: provider)
        case 2:
            let limit = Int(selector >> 5) * 10 + 1
            let page = try await provider.trending(limit: limit)
            checkPage(page, from: provider, limit: limit)
        default:
            // Declared search keeps the whole list a server sends (it does not cap it at the limit): no cap checked.
            let page = try await provider.search(fuzzRequest(selector: selector), options: CallOptions())
            checkPage(page, from: provider, limit: nil)
        }
    }
}

/// The entry point SwiftPM links as `main`: libFuzzer's driver on `fuzz` (see `runLibFuzzer`).
@_cdecl("FuzzDeclared_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzz)
}
