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
///
/// Every input then goes, with the same call, status and body, to the format as it grew for issue 47:
/// the declarations bundled in Seek (Kakao, Naver, Project Gutenberg: header keys, a base URL, field
/// alternatives, ISBN picks, cuts, markup, "Last, First" names, a result filter, error rules, look-ups
/// by search, a concurrency gate) and `fuzzgrown`, which adds typed identifier lists and formats.
/// Seeds/declared holds their recorded answers behind a selector byte.
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

/// The format's later keys, on Google Books' shape: typed identifier lists, alternatives, a format, a
/// filter, error rules (one of them `empty`), a look-up by search for detail, named keys in a header.
let grown = """
{"jsonProviders": [
  {"id": "fuzzgrown", "name": "Fuzz Grown", "baseURL": "https://grown.invalid/api", "baseURLEnv": "FUZZ_GROWN_URL",
   "headers": {"Authorization": "Bearer {key:FUZZ_GROWN_KEY}", "X-Mail": "{key:FUZZ_GROWN_MAIL}"},
   "optionalKeys": ["FUZZ_GROWN_MAIL"],
   "searchURL": "/volumes?q={query}&startIndex={offset}&maxResults={limit}",
   "detailURL": "/volumes?q=isbn:{id}", "detailPath": "items",
   "itemsPath": "items", "totalPath": "totalItems", "maxLimit": 40, "concurrency": 2, "rateLimit": "off",
   "filter": {"path": "kind", "equals": ["books#volume"]}, "bangs": ["fg"],
   "fields": {
     "id": [{"path": "volumeInfo.industryIdentifiers", "where": {"path": "type", "equals": "ISBN_13"}, "value": "identifier", "isbn": "13"},
            {"path": "id"}],
     "title": {"path": "volumeInfo.title", "stripMarkup": true}, "subtitle": {"path": "volumeInfo.title", "after": ": "},
     "creators": {"path": "volumeInfo.authors", "names": "last, first"},
     "translators": {"path": "volumeInfo.translators[].name", "split": "^"},
     "isbn": {"path": "volumeInfo.industryIdentifiers", "where": {"path": "type", "equals": ["ISBN_13", "ISBN_10"]}, "value": "identifier"},
     "year": "volumeInfo.publishedDate", "date": {"path": "volumeInfo.publishedDate", "before": "T"},
     "image": {"path": "volumeInfo.imageLinks.thumbnail", "after": "http", "format": "http{value}"},
     "url": {"path": "id", "format": "https://books.google.com/books?id={value}"},
     "description": {"path": "volumeInfo.description", "stripMarkup": true}, "language": "volumeInfo.language",
     "publishers": "volumeInfo.publisher", "pages": "volumeInfo.pageCount", "subjects": "volumeInfo.categories"
   },
   "attributes": {"sale": "saleInfo", "rating": "volumeInfo.averageRating"},
   "errors": [
     {"path": "error.errors.reason", "equals": ["dailyLimitExceeded", "rateLimitExceeded"], "as": "rateLimited", "message": "error.message", "resetsAt": "00:00-08:00"},
     {"path": "error.details.reason", "equals": "API_KEY_INVALID", "as": "unauthorized", "message": "error.message"},
     {"status": 404, "path": "detail", "as": "empty"},
     {"status": [422, 503], "as": "error", "message": "error"}
   ]
  }
]}
"""

let environment = [
    "FUZZ_BOOKS_KEY": "fuzz/key?0123", "FUZZ_GROWN_KEY": "fuzz-grown-key", "SEEK_KAKAO_REST_API_KEY": "fuzz-kakao-key",
    "SEEK_NAVER_CLIENT_ID": "fuzz-naver-id", "SEEK_NAVER_CLIENT_SECRET": "fuzz-naver-secret",
]

let settings: Settings = {
    guard let file = try? JSONValue(parsing: Data(declarations.utf8)) else { fatalError("the declarations do not parse") }
    return Settings(environment: environment, file: file)
}()

let grownSettings: Settings = {
    guard let file = try? JSONValue(parsing: Data(grown.utf8)) else { fatalError("the grown declaration does not parse") }
    return Settings(environment: environment, file: file)
}()

/// The grown declaration and the bundled ones, with the id each one's detail is asked for.
let grownFactories: [(factory: ProviderFactory, detailID: String)] = {
    do {
        guard let declared = try JSONDeclaredProvider.factories(settings: grownSettings).first else {
            fatalError("the grown declaration made no provider")
        }
        let bundled = JSONDeclaredProvider.bundled
        guard bundled.map(\.id) == ["kakao", "naver", "gutendex"] else { fatalError("unexpected bundled declarations") }
        for factory in bundled { _ = try factory.make(ProviderEnvironment(settings: grownSettings, transport: CannedTransport(HTTPResponse(status: 200)))) }
        return [(declared, "9781617294136"), (bundled[0], "9788983925602"), (bundled[1], "9791130611853"), (bundled[2], "1400")]
    } catch {
        fatalError("the grown or bundled declarations are invalid: \(error)")
    }
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
    for (factory, detailID) in grownFactories {
        _ = fuzzProvider(data, size, settings: grownSettings, factory: factory) { provider, selector in
            switch selector & 0x03 {
            case 1:
                let id = ItemID(provider: provider.descriptor.id, value: detailID)
                let detail = try await provider.detail(id)
                _ = try? detail.verify(answers: id, from: provider)
            case 2 where provider.descriptor.capabilities.contains(.trending):
                let limit = Int(selector >> 5) * 10 + 1
                checkPage(try await provider.trending(limit: limit), from: provider, limit: limit)
            default:
                let page = try await provider.search(fuzzRequest(selector: selector), options: CallOptions())
                checkPage(page, from: provider, limit: nil)
                require(Set(page.items.map(\.id)).count == page.items.count, "\(provider.descriptor.id) repeated an id in one page")
            }
        }
    }
    return fuzzProvider(data, size, settings: settings, factory: { factories[$0 & 0x03 == 3 ? 1 : 0] }) { provider, selector in
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
